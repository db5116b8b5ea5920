"""The Pod Security Standards checks with field errors, as in Kyverno's fork of
k8s.io/pod-security-admission/policy (checks run in Go file order; each has versioned variants)."""

from __future__ import annotations

from .pss_base import (
    BASELINE,
    RESTRICTED,
    Check,
    CheckResult,
    container_failure,
    containers_phrase,
    counted,
    setters_failure,
    FieldError,
    containers,
    as_map,
    forbidden_error,
    join_quote,
    plural,
    required_error,
    security_context,
    Violations,
    is_windows,
)


def _allow_privilege_escalation(meta: dict, spec: dict) -> CheckResult:
    bad = Violations()
    for c, path in containers(spec):
        p = f"{path}.securityContext.allowPrivilegeEscalation"
        sc = security_context(c)
        if sc is None:
            bad.add(c.get("name", ""), required_error(p))
        elif sc.get("allowPrivilegeEscalation") is None:
            bad.add(c.get("name", ""), forbidden_error(p, "nil"))
        elif sc.get("allowPrivilegeEscalation") is True:
            bad.add(c.get("name", ""), forbidden_error(p, True))
    return container_failure(
        "allowPrivilegeEscalation != false", bad, "must set securityContext.allowPrivilegeEscalation=false"
    )


def _not_windows(fn):
    return lambda meta, spec: CheckResult() if is_windows(spec) else fn(meta, spec)


def _app_armor(meta: dict, spec: dict) -> CheckResult:
    setters = Violations()
    bad_values: set[str] = set()
    ok_types = ("RuntimeDefault", "Localhost")
    pod_profile = (
        as_map(as_map(spec.get("securityContext")).get("appArmorProfile"))
        if as_map(spec.get("securityContext")).get("appArmorProfile") is not None
        else None
    )
    if pod_profile is not None and pod_profile.get("type") not in ok_types:
        t = str(pod_profile.get("type") or "")
        setters.add("pod", forbidden_error("spec.securityContext.appArmorProfile.type", t))
        bad_values.add(t)
    bad_containers, errs = [], []
    for c, path in containers(spec):
        sc = security_context(c)
        if sc and sc.get("appArmorProfile") is not None:
            t = str(as_map(sc["appArmorProfile"]).get("type") or "")
            if t not in ok_types:
                bad_containers.append(c.get("name", ""))
                errs.append(forbidden_error(f"{path}.securityContext.appArmorProfile.type", t))
                bad_values.add(t)
    if bad_containers:
        setters.add(containers_phrase(bad_containers), *errs)
    annotations = as_map(meta.get("annotations"))
    forbidden_ann = Violations()
    prefix = "container.apparmor.security.beta.kubernetes.io/"
    for k, v in annotations.items():
        v = str(v)
        if k.startswith(prefix) and not (v == "" or v == "runtime/default" or v.startswith("localhost/")):
            forbidden_ann.add(f'{k}="{v}"', forbidden_error(f"metadata.annotations[{k}]", v))
    value_list = sorted(bad_values)
    if forbidden_ann.data:
        names = sorted(forbidden_ann.data)
        value_list += names
        setters.add(plural("annotation", "annotations", len(names)), *forbidden_ann.errs)
    if setters.data:
        return CheckResult(
            False,
            plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(value_list)),
            f"{' and '.join(setters.data)} must not set AppArmor profile type to {join_quote(value_list)}",
            setters.errs,
        )
    return CheckResult()


_CAPS_ALLOWED = {
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
}


def _caps(c: dict) -> dict | None:
    sc = security_context(c)
    if sc is None or sc.get("capabilities") is None:
        return None
    return as_map(sc["capabilities"])


def _capabilities_baseline(meta: dict, spec: dict) -> CheckResult:
    bad = Violations()
    non_default: set[str] = set()
    for c, path in containers(spec):
        caps = _caps(c)
        if caps is None:
            continue
        forbidden = sorted({str(x) for x in caps.get("add") or [] if str(x) not in _CAPS_ALLOWED})
        if forbidden:
            non_default.update(forbidden)
            bad.add(c.get("name", ""), forbidden_error(f"{path}.securityContext.capabilities.add", forbidden))
    return container_failure(
        "non-default capabilities",
        bad,
        f"must not include {join_quote(sorted(non_default))} in securityContext.capabilities.add",
    )


def _capabilities_restricted(meta: dict, spec: dict) -> CheckResult:
    missing_drop, adding = Violations(), Violations()
    forbidden_caps: set[str] = set()
    for c, path in containers(spec):
        caps = _caps(c)
        drop_path = f"{path}.securityContext.capabilities.drop"
        if caps is None:
            missing_drop.add(c.get("name", ""), required_error(drop_path))
            continue
        drop = [str(x) for x in caps.get("drop") or []]
        if "ALL" not in drop:
            if drop:
                missing_drop.add(c.get("name", ""), forbidden_error(drop_path, sorted(set(drop))))
            else:
                missing_drop.add(c.get("name", ""), required_error(drop_path))
        added = sorted({str(x) for x in caps.get("add") or [] if str(x) != "NET_BIND_SERVICE"})
        if added:
            forbidden_caps.update(added)
            adding.add(c.get("name", ""), forbidden_error(f"{path}.securityContext.capabilities.add", added))
    details = []
    if missing_drop.data:
        details.append(f'{containers_phrase(missing_drop.data)} must set securityContext.capabilities.drop=["ALL"]')
    if adding.data:
        details.append(
            f"{containers_phrase(adding.data)} must not include {join_quote(sorted(forbidden_caps))} in "
            f"securityContext.capabilities.add"
        )
    if details:
        return CheckResult(False, "unrestricted capabilities", "; ".join(details), missing_drop.errs + adding.errs)
    return CheckResult()


def _host_namespaces(meta: dict, spec: dict) -> CheckResult:
    v = Violations()
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(key) is True:
            v.add(f"{key}=true", forbidden_error(f"spec.{key}", True))
    if v.data:
        return CheckResult(False, "host namespaces", ", ".join(v.data), v.errs)
    return CheckResult()


def _volumes(spec: dict):
    vols = spec.get("volumes")
    return [(as_map(v), i) for i, v in enumerate(vols)] if isinstance(vols, list) else []


def _host_path_volumes(meta: dict, spec: dict) -> CheckResult:
    v = Violations()
    for vol, i in _volumes(spec):
        if vol.get("hostPath") is not None:
            v.add(
                vol.get("name", ""),
                forbidden_error(f"spec.volumes[{i}].hostPath", str(as_map(vol["hostPath"]).get("path", ""))),
            )
    if v.data:
        return CheckResult(False, "hostPath volumes", counted("volume", "volumes", v.data), v.errs)
    return CheckResult()


def _host_ports(meta: dict, spec: dict) -> CheckResult:
    bad = Violations()
    ports_seen: set[int] = set()
    for c, path in containers(spec):
        errs = []
        for i, p in enumerate(c.get("ports") or []):
            hp = as_map(p).get("hostPort")
            if hp not in (None, 0):
                ports_seen.add(int(hp))
                errs.append(forbidden_error(f"{path}.ports[{i}].hostPort", int(hp)))
        if errs:
            bad.add(c.get("name", ""), *errs)
    ports = sorted(str(p) for p in ports_seen)
    return container_failure(
        "hostPort",
        bad,
        f"{plural('uses', 'use', len(bad.data))} {plural('hostPort', 'hostPorts', len(ports))} {', '.join(ports)}",
    )


def _bad_hosts(handler: object) -> list[str]:
    h = as_map(handler)
    out = []
    for key in ("httpGet", "tcpSocket"):
        host = as_map(h.get(key)).get("host")
        if host:
            out.append(str(host))
    return out


def _host_probes(meta: dict, spec: dict) -> CheckResult:
    bad_containers: set[str] = set()
    hosts: set[str] = set()
    for c, _ in containers(spec):
        handlers = [c.get("livenessProbe"), c.get("readinessProbe"), c.get("startupProbe")]
        life = as_map(c.get("lifecycle"))
        handlers += [life.get("postStart"), life.get("preStop")]
        for h in handlers:
            found = _bad_hosts(h)
            if found:
                bad_containers.add(c.get("name", ""))
                hosts.update(found)
    if bad_containers:
        return CheckResult(
            False,
            "probe or lifecycle host",
            f"{containers_phrase(sorted(bad_containers))} {plural('uses', 'use', len(bad_containers))} "
            f"{counted('probe or lifecycle host', 'probe or lifecycle hosts', sorted(hosts))}",
        )
    return CheckResult()


def _privileged(meta: dict, spec: dict) -> CheckResult:
    bad = Violations()
    for c, path in containers(spec):
        sc = security_context(c)
        if sc and sc.get("privileged") is True:
            bad.add(c.get("name", ""), forbidden_error(f"{path}.securityContext.privileged", True))
    return container_failure("privileged", bad, "must not set securityContext.privileged=true")


def _proc_mount(meta: dict, spec: dict) -> CheckResult:
    bad = Violations()
    types: set[str] = set()
    for c, path in containers(spec):
        sc = security_context(c)
        if sc is None or sc.get("procMount") is None:
            continue
        pm = str(sc["procMount"])
        if pm != "Default":
            bad.add(c.get("name", ""), forbidden_error(f"{path}.securityContext.procMount", pm))
            types.add(pm)
    return container_failure("procMount", bad, f"must not set securityContext.procMount to {join_quote(sorted(types))}")


_ALLOWED_VOLUMES = (
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
)
_RESTRICTED_VOLUMES = (
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "nfs",
    "iscsi",
    "glusterfs",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "fc",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "storageos",
)


def _restricted_volumes(meta: dict, spec: dict) -> CheckResult:
    bad = Violations()
    types: set[str] = set()
    for vol, i in _volumes(spec):
        if any(vol.get(k) is not None for k in _ALLOWED_VOLUMES):
            continue
        kind = next((k for k in _RESTRICTED_VOLUMES if vol.get(k) is not None), "unknown")
        types.add(kind)
        bad.add(vol.get("name", ""), forbidden_error(f"spec.volumes[{i}].{kind}"))
    if bad.data:
        return CheckResult(
            False,
            "restricted volume types",
            f"{counted('volume', 'volumes', bad.data)} {plural('uses', 'use', len(bad.data))} "
            f"{counted('restricted volume type', 'restricted volume types', sorted(types))}",
            bad.errs,
        )
    return CheckResult()


def _run_as_non_root(meta: dict, spec: dict) -> CheckResult:
    setters = Violations()
    pod_ok = False
    psc = as_map(spec.get("securityContext"))
    if psc.get("runAsNonRoot") is not None:
        if psc["runAsNonRoot"] is not True:
            setters.add("pod", forbidden_error("spec.securityContext.runAsNonRoot", False))
        else:
            pod_ok = True
    explicit, implicit, explicit_errs = [], Violations(), []
    for c, path in containers(spec):
        sc = security_context(c)
        if sc is not None and sc.get("runAsNonRoot") is not None:
            if sc["runAsNonRoot"] is not True:
                explicit.append(c.get("name", ""))
                explicit_errs.append(forbidden_error(f"{path}.securityContext.runAsNonRoot", False))
        elif not pod_ok:
            implicit.add(c.get("name", ""), required_error(f"{path}.securityContext.runAsNonRoot"))
    if explicit:
        setters.add(containers_phrase(explicit), *explicit_errs)
    details, errors = [], []
    if setters.data:
        details.append(f"{' and '.join(setters.data)} must not set securityContext.runAsNonRoot=false")
        errors += setters.errs
    if implicit.data:
        details.append(f"pod or {containers_phrase(implicit.data)} must set securityContext.runAsNonRoot=true")
        errors += implicit.errs
    if details:
        return CheckResult(False, "runAsNonRoot != true", "\n".join(details), errors)
    return CheckResult()


def _run_as_user(meta: dict, spec: dict) -> CheckResult:
    setters = Violations()
    if as_map(spec.get("securityContext")).get("runAsUser") == 0 and not isinstance(
        as_map(spec.get("securityContext")).get("runAsUser"), bool
    ):
        setters.add("pod", forbidden_error("spec.securityContext.runAsUser", 0))
    explicit, errs = [], []
    for c, path in containers(spec):
        sc = security_context(c)
        if sc is not None and sc.get("runAsUser") == 0 and not isinstance(sc.get("runAsUser"), bool):
            explicit.append(c.get("name", ""))
            errs.append(forbidden_error(f"{path}.securityContext.runAsUser", 0))
    if explicit:
        setters.add(containers_phrase(explicit), *errs)
    return setters_failure("runAsUser=0", setters, "must not set runAsUser=0")


_SELINUX_1_0 = {"", "container_t", "container_init_t", "container_kvm_t"}
_SELINUX_1_31 = _SELINUX_1_0 | {"container_engine_t"}


def _selinux(allowed: set[str]):
    def check(meta: dict, spec: dict) -> CheckResult:
        setters = Violations()
        bad_types: set[str] = set()
        flags = {"user": False, "role": False}
        container_errs: list[FieldError] = []

        def valid(opts: dict, prefix: str, errs: list[FieldError]) -> bool:
            ok = True
            t = str(opts.get("type") or "")
            if t not in allowed:
                ok = False
                bad_types.add(t)
                errs.append(forbidden_error(f"{prefix}.seLinuxOptions.type", t))
            for key in ("user", "role"):
                if opts.get(key):
                    ok = False
                    flags[key] = True
                    errs.append(forbidden_error(f"{prefix}.seLinuxOptions.{key}", str(opts[key])))
            return ok

        psc = as_map(spec.get("securityContext"))
        if psc.get("seLinuxOptions") is not None:
            pod_errs: list[FieldError] = []
            if not valid(as_map(psc["seLinuxOptions"]), "spec.securityContext", pod_errs):
                setters.add("pod", *pod_errs)
        bad_containers = []
        for c, path in containers(spec):
            sc = security_context(c)
            if sc is not None and sc.get("seLinuxOptions") is not None:
                if not valid(as_map(sc["seLinuxOptions"]), f"{path}.securityContext", container_errs):
                    bad_containers.append(c.get("name", ""))
        if bad_containers:
            setters.add(containers_phrase(bad_containers), *container_errs)
        if setters.data:
            data = []
            if bad_types:
                data.append(counted("type", "types", sorted(bad_types)))
            if flags["user"]:
                data.append("user may not be set")
            if flags["role"]:
                data.append("role may not be set")
            return CheckResult(
                False,
                "seLinuxOptions",
                f"{' and '.join(setters.data)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}",
                setters.errs,
            )
        return CheckResult()

    return check


def _valid_seccomp(t: object) -> bool:
    return t in ("Localhost", "RuntimeDefault")


def _seccomp_baseline_1_0(meta: dict, spec: dict) -> CheckResult:
    annotations = as_map(meta.get("annotations"))
    found: dict[str, list[FieldError]] = {}

    def valid(v: str) -> bool:
        return v in ("runtime/default", "docker/default") or v.startswith("localhost/")

    pod_key = "seccomp.security.alpha.kubernetes.io/pod"
    if pod_key in annotations and not valid(str(annotations[pod_key])):
        val = str(annotations[pod_key])
        found.setdefault(f'{pod_key}="{val}"', []).append(forbidden_error(f"metadata.annotations[{pod_key}]", val))
    for c, _ in containers(spec):
        key = "container.seccomp.security.alpha.kubernetes.io/" + str(c.get("name", ""))
        if key in annotations and not valid(str(annotations[key])):
            val = str(annotations[key])
            found.setdefault(f'{key}="{val}"', []).append(forbidden_error(f"metadata.annotations[{key}]", val))
    if found:
        setters = Violations()
        for k, errs in found.items():
            setters.add(k, *errs)
        values = sorted(setters.data)
        return CheckResult(
            False,
            "seccompProfile",
            f"forbidden {plural('annotation', 'annotations', len(values))} {', '.join(values)}",
            setters.errs,
        )
    return CheckResult()


def _seccomp_setters(spec: dict, implicit_required: bool) -> CheckResult:
    setters = Violations()
    bad_values: set[str] = set()
    pod_set = False
    psc = as_map(spec.get("securityContext"))
    if psc.get("seccompProfile") is not None:
        t = as_map(psc["seccompProfile"]).get("type")
        if not _valid_seccomp(t):
            setters.add("pod", forbidden_error("spec.securityContext.seccompProfile.type", str(t or "")))
            bad_values.add(str(t or ""))
        else:
            pod_set = True
    explicit, errs, implicit = [], [], Violations()
    for c, path in containers(spec):
        sc = security_context(c)
        if sc is not None and sc.get("seccompProfile") is not None:
            t = as_map(sc["seccompProfile"]).get("type")
            if not _valid_seccomp(t):
                explicit.append(c.get("name", ""))
                errs.append(forbidden_error(f"{path}.securityContext.seccompProfile.type", str(t or "")))
                bad_values.add(str(t or ""))
        elif implicit_required and not pod_set:
            implicit.add(c.get("name", ""), required_error(f"{path}.securityContext.seccompProfile.type"))
    if explicit:
        setters.add(containers_phrase(explicit), *errs)
    if setters.data:
        return setters_failure(
            "seccompProfile",
            setters,
            f"must not set securityContext.seccompProfile.type to {join_quote(sorted(bad_values))}",
        )
    if implicit.data:
        return CheckResult(
            False,
            "seccompProfile",
            f'pod or {containers_phrase(implicit.data)} must set securityContext.seccompProfile.type to "RuntimeDefault" '
            f'or "Localhost"',
            implicit.errs,
        )
    return CheckResult()


_SYSCTLS_1_0 = {
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
}
_SYSCTLS_1_27 = _SYSCTLS_1_0 | {"net.ipv4.ip_local_reserved_ports"}
_SYSCTLS_1_29 = _SYSCTLS_1_27 | {
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}
_SYSCTLS_1_32 = _SYSCTLS_1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}


def _sysctls(allowed: set[str]):
    def check(meta: dict, spec: dict) -> CheckResult:
        v = Violations()
        for i, s in enumerate(as_map(spec.get("securityContext")).get("sysctls") or []):
            name = str(as_map(s).get("name", ""))
            if name not in allowed:
                v.add(name, forbidden_error(f"spec.securityContext.sysctls[{i}].name", name))
        if v.data:
            return CheckResult(False, "forbidden sysctls", ", ".join(v.data), v.errs)
        return CheckResult()

    return check


def _windows_host_process(meta: dict, spec: dict) -> CheckResult:
    bad, errs = [], []
    for c, path in containers(spec):
        if as_map(as_map(security_context(c)).get("windowsOptions")).get("hostProcess") is True:
            bad.append(c.get("name", ""))
            errs.append(forbidden_error(f"{path}.securityContext.windowsOptions.hostProcess", True))
    setters = Violations()
    if as_map(as_map(spec.get("securityContext")).get("windowsOptions")).get("hostProcess") is True:
        setters.add("pod", forbidden_error("spec.securityContext.windowsOptions.hostProcess", True))
    if bad:
        setters.add(containers_phrase(bad), *errs)
    return setters_failure("hostProcess", setters, "must not set securityContext.windowsOptions.hostProcess=true")


def _seccomp_baseline(meta: dict, spec: dict) -> CheckResult:
    return _seccomp_setters(spec, False)


def _seccomp_restricted(meta: dict, spec: dict) -> CheckResult:
    return _seccomp_setters(spec, True)


def _windows_exempt_from_1_25(since: tuple[int, int], check) -> list:
    """A restricted check whose v1.25 variant lets Windows pods through."""
    return [(since, check), ((1, 25), _not_windows(check))]


_SYSCTLS_BY_VERSION = (
    ((1, 0), _SYSCTLS_1_0),
    ((1, 27), _SYSCTLS_1_27),
    ((1, 29), _SYSCTLS_1_29),
    ((1, 32), _SYSCTLS_1_32),
)

CHECKS: list[Check] = [
    Check("allowPrivilegeEscalation", RESTRICTED, _windows_exempt_from_1_25((1, 8), _allow_privilege_escalation)),
    Check("appArmorProfile", BASELINE, [((1, 0), _app_armor)]),
    Check("capabilities_baseline", BASELINE, [((1, 0), _capabilities_baseline)]),
    Check("capabilities_restricted", RESTRICTED, _windows_exempt_from_1_25((1, 22), _capabilities_restricted)),
    Check("hostNamespaces", BASELINE, [((1, 0), _host_namespaces)]),
    Check("hostPathVolumes", BASELINE, [((1, 0), _host_path_volumes)]),
    Check("hostPorts", BASELINE, [((1, 0), _host_ports)]),
    Check("hostProbesAndHostLifecycle", BASELINE, [((1, 34), _host_probes)]),
    Check("privileged", BASELINE, [((1, 0), _privileged)]),
    Check("procMount", BASELINE, [((1, 0), _proc_mount)]),
    Check("restrictedVolumes", RESTRICTED, [((1, 0), _restricted_volumes)]),
    Check("runAsNonRoot", RESTRICTED, [((1, 0), _run_as_non_root)]),
    Check("runAsUser", RESTRICTED, [((1, 23), _run_as_user)]),
    Check("seLinuxOptions", BASELINE, [((1, 0), _selinux(_SELINUX_1_0)), ((1, 31), _selinux(_SELINUX_1_31))]),
    Check("seccompProfile_baseline", BASELINE, [((1, 0), _seccomp_baseline_1_0), ((1, 19), _seccomp_baseline)]),
    Check("seccompProfile_restricted", RESTRICTED, _windows_exempt_from_1_25((1, 19), _seccomp_restricted)),
    Check("sysctls", BASELINE, [(since, _sysctls(allowed)) for since, allowed in _SYSCTLS_BY_VERSION]),
    Check("windowsHostProcess", BASELINE, [((1, 0), _windows_host_process)]),
]
