"""The built-in Kubernetes API resources, as a compact table (data only; parsed by ``restmapping``).

Source: the API server's discovery documents checked into kubernetes/kubernetes
(``api/discovery/aggregated_v2.json`` and ``api/discovery/api__v1.json`` / ``apis__<group>__<version>.json``)
(v1.34 to the current main branch, alpha groups included), plus versions that earlier releases served and that were removed later, marked with ``~``:
the server no longer serves them, but ``matchPolicy: Equivalent`` rules and old manifests still name
them (e.g. ``extensions/v1beta1`` deployments), so the simulator keeps them.

Columns: ``group | versions | resource | Kind | scope (N/C) | subresources``.
- versions: space separated, preferred first; ``~v1beta1`` = no longer served.
- subresources: ``name`` (same kind as the resource), ``name=Kind`` (that kind in the resource's
  group/version), or ``name=group/version/Kind`` (a fixed kind; core group written as ``core``).
- A resource may take several rows when its subresources differ by version (``apps`` Scale kinds).
"""

TABLE = """
core | v1 | bindings | Binding | N |
core | v1 | componentstatuses | ComponentStatus | C |
core | v1 | configmaps | ConfigMap | N |
core | v1 | endpoints | Endpoints | N |
core | v1 | events | Event | N |
core | v1 | limitranges | LimitRange | N |
core | v1 | namespaces | Namespace | C | finalize status
core | v1 | nodes | Node | C | proxy=NodeProxyOptions status
core | v1 | persistentvolumeclaims | PersistentVolumeClaim | N | status
core | v1 | persistentvolumes | PersistentVolume | C | status
core | v1 | pods | Pod | N | attach=PodAttachOptions binding=Binding ephemeralcontainers eviction=policy/v1/Eviction exec=PodExecOptions log portforward=PodPortForwardOptions proxy=PodProxyOptions resize status
core | v1 | podtemplates | PodTemplate | N |
core | v1 | replicationcontrollers | ReplicationController | N | scale=autoscaling/v1/Scale status
core | v1 | resourcequotas | ResourceQuota | N | status
core | v1 | secrets | Secret | N |
core | v1 | serviceaccounts | ServiceAccount | N | token=authentication.k8s.io/v1/TokenRequest
core | v1 | services | Service | N | proxy=ServiceProxyOptions status

admissionregistration.k8s.io | v1 ~v1beta1 | mutatingwebhookconfigurations | MutatingWebhookConfiguration | C |
admissionregistration.k8s.io | v1 ~v1beta1 | validatingwebhookconfigurations | ValidatingWebhookConfiguration | C |
admissionregistration.k8s.io | v1 v1beta1 v1alpha1 | validatingadmissionpolicies | ValidatingAdmissionPolicy | C | status
admissionregistration.k8s.io | v1 v1beta1 v1alpha1 | validatingadmissionpolicybindings | ValidatingAdmissionPolicyBinding | C |
admissionregistration.k8s.io | v1 v1beta1 v1alpha1 | mutatingadmissionpolicies | MutatingAdmissionPolicy | C |
admissionregistration.k8s.io | v1 v1beta1 v1alpha1 | mutatingadmissionpolicybindings | MutatingAdmissionPolicyBinding | C |

apiextensions.k8s.io | v1 ~v1beta1 | customresourcedefinitions | CustomResourceDefinition | C | status
apiregistration.k8s.io | v1 ~v1beta1 | apiservices | APIService | C | status

apps | v1 ~v1beta2 ~v1beta1 | controllerrevisions | ControllerRevision | N |
apps | v1 ~v1beta2 | daemonsets | DaemonSet | N | status
apps | v1 | deployments | Deployment | N | scale=autoscaling/v1/Scale status
apps | v1 | replicasets | ReplicaSet | N | scale=autoscaling/v1/Scale status
apps | v1 | statefulsets | StatefulSet | N | scale=autoscaling/v1/Scale status
apps | ~v1beta2 | deployments | Deployment | N | scale=Scale status
apps | ~v1beta2 | replicasets | ReplicaSet | N | scale=Scale status
apps | ~v1beta2 | statefulsets | StatefulSet | N | scale=Scale status
apps | ~v1beta1 | deployments | Deployment | N | rollback=DeploymentRollback scale=Scale status
apps | ~v1beta1 | statefulsets | StatefulSet | N | scale=Scale status

extensions | ~v1beta1 | daemonsets | DaemonSet | N | status
extensions | ~v1beta1 | deployments | Deployment | N | rollback=DeploymentRollback scale=Scale status
extensions | ~v1beta1 | ingresses | Ingress | N | status
extensions | ~v1beta1 | networkpolicies | NetworkPolicy | N |
extensions | ~v1beta1 | podsecuritypolicies | PodSecurityPolicy | C |
extensions | ~v1beta1 | replicasets | ReplicaSet | N | scale=Scale status

authentication.k8s.io | v1 ~v1beta1 | tokenreviews | TokenReview | C |
authentication.k8s.io | v1 v1beta1 v1alpha1 | selfsubjectreviews | SelfSubjectReview | C |
authorization.k8s.io | v1 ~v1beta1 | localsubjectaccessreviews | LocalSubjectAccessReview | N |
authorization.k8s.io | v1 ~v1beta1 | selfsubjectaccessreviews | SelfSubjectAccessReview | C |
authorization.k8s.io | v1 ~v1beta1 | selfsubjectrulesreviews | SelfSubjectRulesReview | C |
authorization.k8s.io | v1 ~v1beta1 | subjectaccessreviews | SubjectAccessReview | C |

autoscaling | v2 v1 ~v2beta2 ~v2beta1 | horizontalpodautoscalers | HorizontalPodAutoscaler | N | status

batch | v1 ~v1beta1 | cronjobs | CronJob | N | status
batch | v1 | jobs | Job | N | status

certificates.k8s.io | v1 ~v1beta1 | certificatesigningrequests | CertificateSigningRequest | C | approval status
certificates.k8s.io | v1beta1 v1alpha1 | clustertrustbundles | ClusterTrustBundle | C |
certificates.k8s.io | v1alpha1 | podcertificaterequests | PodCertificateRequest | N | status

coordination.k8s.io | v1 ~v1beta1 | leases | Lease | N |
coordination.k8s.io | v1beta1 v1alpha2 | leasecandidates | LeaseCandidate | N |

discovery.k8s.io | v1 ~v1beta1 | endpointslices | EndpointSlice | N |
events.k8s.io | v1 ~v1beta1 | events | Event | N |

flowcontrol.apiserver.k8s.io | v1 ~v1beta3 ~v1beta2 ~v1beta1 | flowschemas | FlowSchema | C | status
flowcontrol.apiserver.k8s.io | v1 ~v1beta3 ~v1beta2 ~v1beta1 | prioritylevelconfigurations | PriorityLevelConfiguration | C | status

internal.apiserver.k8s.io | v1alpha1 | storageversions | StorageVersion | C | status

networking.k8s.io | v1 ~v1beta1 | ingressclasses | IngressClass | C |
networking.k8s.io | v1 ~v1beta1 | ingresses | Ingress | N | status
networking.k8s.io | v1 | networkpolicies | NetworkPolicy | N |
networking.k8s.io | v1 v1beta1 | ipaddresses | IPAddress | C |
networking.k8s.io | v1 v1beta1 | servicecidrs | ServiceCIDR | C | status

node.k8s.io | v1 ~v1beta1 | runtimeclasses | RuntimeClass | C |

policy | v1 ~v1beta1 | poddisruptionbudgets | PodDisruptionBudget | N | status
policy | ~v1beta1 | podsecuritypolicies | PodSecurityPolicy | C |

rbac.authorization.k8s.io | v1 ~v1beta1 ~v1alpha1 | clusterrolebindings | ClusterRoleBinding | C |
rbac.authorization.k8s.io | v1 ~v1beta1 ~v1alpha1 | clusterroles | ClusterRole | C |
rbac.authorization.k8s.io | v1 ~v1beta1 ~v1alpha1 | rolebindings | RoleBinding | N |
rbac.authorization.k8s.io | v1 ~v1beta1 ~v1alpha1 | roles | Role | N |

resource.k8s.io | v1 v1beta2 v1beta1 | deviceclasses | DeviceClass | C |
resource.k8s.io | v1 v1beta2 v1beta1 | resourceclaims | ResourceClaim | N | status
resource.k8s.io | v1 v1beta2 v1beta1 | resourceclaimtemplates | ResourceClaimTemplate | N |
resource.k8s.io | v1 v1beta2 v1beta1 | resourceslices | ResourceSlice | C |
resource.k8s.io | v1alpha3 | devicetaintrules | DeviceTaintRule | C |

scheduling.k8s.io | v1 ~v1beta1 ~v1alpha1 | priorityclasses | PriorityClass | C |
scheduling.k8s.io | v1alpha2 v1alpha1 | workloads | Workload | N |
scheduling.k8s.io | v1alpha2 | podgroups | PodGroup | N | status
scheduling.k8s.io | v1alpha2 | compositepodgroups | CompositePodGroup | N | status

lifecycle.k8s.io | v1alpha1 | evictionrequests | EvictionRequest | N | status
lifecycle.k8s.io | v1alpha1 | evictions | Eviction | N | status
checkpoint.k8s.io | v1alpha1 | podcheckpoints | PodCheckpoint | N | status

storage.k8s.io | v1 ~v1beta1 | csidrivers | CSIDriver | C |
storage.k8s.io | v1 ~v1beta1 | csinodes | CSINode | C |
storage.k8s.io | v1 ~v1beta1 | csistoragecapacities | CSIStorageCapacity | N |
storage.k8s.io | v1 ~v1beta1 | storageclasses | StorageClass | C |
storage.k8s.io | v1 ~v1beta1 | volumeattachments | VolumeAttachment | C | status
storage.k8s.io | v1 v1beta1 | volumeattributesclasses | VolumeAttributesClass | C |

storagemigration.k8s.io | v1 v1beta1 v1alpha1 | storageversionmigrations | StorageVersionMigration | C | status
"""

# Resources that share storage across API groups ("cohabitating" resources in the API server's storage
# factory). Requests for one are equivalent to requests for the others under ``matchPolicy: Equivalent``.
# Same group + resource across versions are always equivalent and need no entry here.
COHABITATING = [
    ("apps", "deployments", "extensions", "deployments"),
    ("apps", "daemonsets", "extensions", "daemonsets"),
    ("apps", "replicasets", "extensions", "replicasets"),
    ("networking.k8s.io", "ingresses", "extensions", "ingresses"),
    ("networking.k8s.io", "networkpolicies", "extensions", "networkpolicies"),
    ("policy", "podsecuritypolicies", "extensions", "podsecuritypolicies"),
    ("", "events", "events.k8s.io", "events"),
]
