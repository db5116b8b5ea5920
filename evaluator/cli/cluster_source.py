"""`simulate --kubeconfig K [--context C] [--cluster-kinds Deployment,ConfigMap -n NS -l SELECTOR]`: the cluster's
policies, bindings, CRDs, namespaces and params (and the objects of the named kinds) as documents, read-only
(evaluator/cluster). Each object is one document named `cluster:<context>/<Kind>/[<namespace>/]<name>`."""

from __future__ import annotations

import argparse
import json
from typing import Any

from evaluator.admission.loading import NamedText

MAX_OBJECTS = 2000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("cluster (read-only)")
    group.add_argument(
        "--kubeconfig", metavar="PATH", help="also read the cluster's policies, bindings, CRDs, namespaces, params"
    )
    group.add_argument("--context", help="the kubeconfig context to use (default: its current context)")
    group.add_argument(
        "--cluster-kinds",
        metavar="KIND,...",
        default="",
        help="also read these kinds' objects (Deployment, apps/v1/Deployment, deployments.apps; never Secrets)",
    )
    group.add_argument("-n", "--cluster-namespace", metavar="NS", help="only --cluster-kinds objects of this namespace")
    group.add_argument(
        "-l", "--cluster-selector", metavar="SELECTOR", help="only --cluster-kinds objects with these labels"
    )


def cluster_documents(args: argparse.Namespace) -> tuple[list[NamedText], list[dict]]:
    """(one named text per object, problems naming kind and reason)."""
    from evaluator.cluster import (
        DEFAULT_ALLOWED,
        ClusterError,
        ClusterReader,
        Connection,
        ObjectQuery,
        ReadOnlyClient,
        Selection,
        allowed_set,
        load,
    )

    kinds = [k.strip() for k in args.cluster_kinds.split(",") if k.strip()]
    selection = Selection(
        policies=True,
        crds=True,
        namespaces=True,
        params=True,
        objects=[ObjectQuery(k, args.cluster_namespace, args.cluster_selector) for k in kinds],
    )
    client = ReadOnlyClient(Connection(args.kubeconfig, args.context or None))
    try:
        with client:
            loaded, errors = load(ClusterReader(client, allowed_set(DEFAULT_ALLOWED)), selection, MAX_OBJECTS)
    except ClusterError as exc:
        loaded, errors = [], [exc]
    texts = [NamedText(json.dumps(obj, indent=2), document_name(origin)) for obj, origin in loaded]
    problems = [{"severity": "error", "source": "cluster", "message": e.message} for e in errors]
    return texts, problems


def document_name(origin: dict[str, Any]) -> str:
    where = f"{origin['namespace']}/" if origin.get("namespace") else ""
    return f"cluster:{origin['cluster']}/{origin['kind']}/{where}{origin['name']}"
