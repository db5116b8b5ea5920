// A small JSON-schema set for the kinds the engine evaluates: enough for field-name completion, enum
// values, unknown-field and type warnings. The server's validation is the authority; this is a guide.

const str = (description, extra = {}) => ({ type: "string", description, ...extra });
const bool = (description) => ({ type: "boolean", description });
const int = (description) => ({ type: "integer", description });
const oneOf = (values, description) => ({ type: "string", enum: values, description });
const any = (description) => ({ description });
const arr = (items, description) => ({ type: "array", items, description });
const obj = (properties, { required = [], open = false, description } = {}) =>
  ({ type: "object", properties, required, additionalProperties: open, description });
const stringMap = (description) => ({ type: "object", additionalProperties: { type: "string" }, description });

const labelSelector = obj({
  matchLabels: stringMap("labels that must all match"),
  matchExpressions: arr(obj({
    key: str("label key"),
    operator: oneOf(["In", "NotIn", "Exists", "DoesNotExist"], "selector operator"),
    values: arr(str("value")),
  }, { required: ["key", "operator"] })),
}, { description: "a label selector" });

const metadata = obj({
  name: str("object name"),
  generateName: str("name prefix"),
  namespace: str("namespace"),
  labels: stringMap("labels"),
  annotations: stringMap("annotations"),
  uid: str("uid"),
  resourceVersion: str("resource version"),
  ownerReferences: arr(any("owner reference")),
  finalizers: arr(str("finalizer")),
}, { open: true, description: "standard object metadata" });

const operations = arr(oneOf(["*", "CREATE", "UPDATE", "DELETE", "CONNECT"], "operation"));
const resourceRule = obj({
  apiGroups: arr(str("API group ('' is core, '*' all)")),
  apiVersions: arr(str("API version")),
  operations,
  resources: arr(str("resource, e.g. deployments, pods/status, *")),
  resourceNames: arr(str("object name")),
  scope: oneOf(["*", "Cluster", "Namespaced"], "scope"),
});
const matchResources = obj({
  namespaceSelector: labelSelector,
  objectSelector: labelSelector,
  resourceRules: arr(resourceRule, "what the policy applies to"),
  excludeResourceRules: arr(resourceRule, "what it never applies to"),
  matchPolicy: oneOf(["Exact", "Equivalent"], "match equivalent versions and groups too"),
});
const namedExpression = (nameKey, nameDescription) => obj({
  [nameKey]: str(nameDescription),
  expression: str("CEL expression"),
}, { required: [nameKey, "expression"] });
/** A VAP's or a Kyverno ValidatingPolicy's validations (`word`: what a true expression does). */
const celValidations = (word) => arr(obj({
  expression: str(`CEL: true ${word}`),
  message: str("message when false"),
  messageExpression: str("CEL: the message as a string"),
  reason: oneOf(["Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge"], "HTTP reason"),
}, { required: ["expression"] }), "CEL validations");
const auditAnnotations = arr(obj({ key: str("annotation key"), valueExpression: str("CEL: the value") },
  { required: ["key", "valueExpression"] }));
const paramKind = obj({ apiVersion: str("param apiVersion"), kind: str("param kind") });
const paramRef = obj({
  name: str("param name"),
  namespace: str("param namespace"),
  selector: labelSelector,
  parameterNotFoundAction: oneOf(["Allow", "Deny"], "what to do when no param is found"),
});
const failurePolicy = oneOf(["Fail", "Ignore"], "what an error does");
const common = (kind, spec, apiVersions) => obj({
  apiVersion: oneOf(apiVersions, "API version"),
  kind: oneOf([kind], "kind"),
  metadata,
  spec,
}, { required: ["apiVersion", "kind", "metadata", "spec"] });

const ADMISSION_VERSIONS = ["admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1beta1",
  "admissionregistration.k8s.io/v1alpha1"];

const vap = common("ValidatingAdmissionPolicy", obj({
  paramKind,
  matchConstraints: matchResources,
  validations: celValidations("admits"),
  auditAnnotations,
  matchConditions: arr(namedExpression("name", "condition name"), "CEL pre-conditions"),
  variables: arr(namedExpression("name", "variable name, used as variables.<name>"), "lazy CEL variables"),
  failurePolicy,
}), ADMISSION_VERSIONS);

const bindingSpec = (extra) => obj({ policyName: str("the policy this binds"), paramRef, matchResources, ...extra },
  { required: ["policyName"] });
const vapb = common("ValidatingAdmissionPolicyBinding", bindingSpec({
  validationActions: arr(oneOf(["Deny", "Warn", "Audit"], "action"), "what a failure does"),
}), ADMISSION_VERSIONS);

const map = common("MutatingAdmissionPolicy", obj({
  paramKind,
  matchConstraints: matchResources,
  variables: arr(namedExpression("name", "variable name")),
  mutations: arr(obj({
    patchType: oneOf(["ApplyConfiguration", "JSONPatch"], "how the mutation patches"),
    applyConfiguration: obj({ expression: str("CEL: an Object{...} apply configuration") }),
    jsonPatch: obj({ expression: str("CEL: a list of JSONPatch{...}") }),
  }, { required: ["patchType"] })),
  failurePolicy,
  matchConditions: arr(namedExpression("name", "condition name")),
  reinvocationPolicy: oneOf(["Never", "IfNeeded"], "run again after later mutations"),
}), ADMISSION_VERSIONS);
const mapb = common("MutatingAdmissionPolicyBinding", bindingSpec({}), ADMISSION_VERSIONS);

const resourceFilter = obj({
  kinds: arr(str("Kind, group/version/Kind or Kind/subresource")),
  names: arr(str("name (wildcards)")),
  namespaces: arr(str("namespace (wildcards)")),
  operations: arr(oneOf(["CREATE", "UPDATE", "DELETE", "CONNECT"], "operation")),
  annotations: stringMap("annotations"),
  selector: labelSelector,
  namespaceSelector: labelSelector,
});
const filterBlock = obj({
  resources: resourceFilter,
  subjects: arr(any("subject")),
  roles: arr(str("role")),
  clusterRoles: arr(str("cluster role")),
});
const matchBlock = obj({ any: arr(filterBlock), all: arr(filterBlock), resources: resourceFilter });
const kyvernoRule = obj({
  name: str("rule name"),
  match: matchBlock,
  exclude: matchBlock,
  preconditions: any("conditions: any/all"),
  context: arr(any("context entry")),
  validate: obj({
    message: str("message on failure"),
    pattern: any("a resource pattern (anchors allowed)"),
    anyPattern: arr(any("a pattern")),
    deny: obj({ conditions: any("any/all conditions") }),
    foreach: arr(any("foreach declaration")),
    podSecurity: obj({ level: oneOf(["baseline", "restricted", "privileged"], "level"), version: str("version"),
      exclude: arr(any("exclusion")) }),
    cel: obj({
      expressions: arr(obj({ expression: str("CEL expression"), message: str("message"),
        messageExpression: str("CEL message") })),
      variables: arr(namedExpression("name", "variable name")),
      paramKind, paramRef, auditAnnotations: arr(any("audit annotation")),
    }),
    failureAction: oneOf(["Enforce", "Audit"], "rule failure action"),
    allowExistingViolations: bool("keep existing violations"),
  }),
  mutate: any("mutation"),
  generate: any("generation"),
  verifyImages: arr(any("image verification")),
  skipBackgroundRequests: bool("skip background requests"),
  celPreconditions: arr(namedExpression("name", "condition name")),
}, { required: ["name"] });
const kyvernoSpec = obj({
  validationFailureAction: oneOf(["Enforce", "Audit", "enforce", "audit"], "default failure action"),
  background: bool("run in background scans"),
  admission: bool("run at admission"),
  failurePolicy,
  rules: arr(kyvernoRule, "rules"),
  webhookTimeoutSeconds: int("webhook timeout"),
  emitWarning: bool("emit warnings"),
  validationFailureActionOverrides: arr(any("override")),
  applyRules: oneOf(["All", "One"], "apply all rules or the first matching one"),
}, { required: ["rules"] });
const clusterPolicy = common("ClusterPolicy", kyvernoSpec, ["kyverno.io/v1", "kyverno.io/v2beta1"]);
const policy = common("Policy", kyvernoSpec, ["kyverno.io/v1", "kyverno.io/v2beta1"]);
const VPOL_VERSIONS = ["policies.kyverno.io/v1", "policies.kyverno.io/v1beta1", "policies.kyverno.io/v1alpha1"];
const vpolSpec = obj({
  matchConstraints: matchResources,
  matchConditions: arr(namedExpression("name", "condition name"), "CEL pre-conditions"),
  variables: arr(namedExpression("name", "variable name, used as variables.<name>"), "lazy CEL variables"),
  validations: celValidations("passes"),
  auditAnnotations,
  failurePolicy,
  validationActions: arr(oneOf(["Deny", "Warn", "Audit"], "action"), "what a failure does (default Deny)"),
  evaluation: obj({
    mode: oneOf(["Kubernetes", "JSON", "HTTP", "Envoy"], "what `object` is"),
    admission: obj({ enabled: bool("run at admission") }),
    background: obj({ enabled: bool("run in background scans") }),
  }),
  autogen: obj({
    podControllers: obj({ controllers: arr(oneOf(["daemonsets", "deployments", "replicasets", "statefulsets",
      "jobs", "cronjobs"], "pod controller"), "controllers to generate variants for ([] for none)") }),
    validatingAdmissionPolicy: obj({ enabled: bool("generate a ValidatingAdmissionPolicy") }),
  }),
  webhookConfiguration: obj({ timeoutSeconds: int("webhook timeout") }),
});
const validatingPolicy = common("ValidatingPolicy", vpolSpec, VPOL_VERSIONS);
const namespacedValidatingPolicy = common("NamespacedValidatingPolicy", vpolSpec, VPOL_VERSIONS.slice(0, 2));
const enabled = (description) => obj({ enabled: bool(description) });
const gpolSpec = obj({
  matchConstraints: matchResources,
  matchConditions: arr(namedExpression("name", "condition name"), "CEL pre-conditions"),
  variables: arr(namedExpression("name", "variable name, used as variables.<name>"), "lazy CEL variables"),
  generate: arr(obj({
    expression: str("CEL calling generator.Apply(namespace, [objects])"),
    template: obj({
      value: str("YAML of the objects to generate"),
      interpolate: oneOf(["none", "cel"], "cel: (( expression )) placeholders are evaluated"),
    }, { required: ["value"] }),
  }), "what to generate: one expression or template each"),
  auditAnnotations,
  evaluation: obj({
    admission: enabled("run at admission"),
    generateExisting: enabled("generate for existing triggers when the policy is created"),
    synchronize: enabled("keep the downstream in line with the trigger and the policy"),
    orphanDownstreamOnPolicyDelete: enabled("keep the downstream when the policy is deleted"),
    skipBackgroundRequests: bool("skip Kyverno's own background requests"),
  }),
  useServerSideApply: bool("apply generated objects server-side"),
  webhookConfiguration: obj({ timeoutSeconds: int("webhook timeout") }),
}, { required: ["matchConstraints", "generate"] });
const dpolSpec = obj({
  matchConstraints: matchResources,
  conditions: arr(namedExpression("name", "condition name"), "CEL: all true deletes the object"),
  variables: arr(namedExpression("name", "variable name, used as variables.<name>"), "lazy CEL variables"),
  schedule: str("cron schedule of the runs, e.g. '0 1 * * *'"),
  deletionPropagationPolicy: oneOf(["Orphan", "Background", "Foreground"], "how dependents are deleted"),
}, { required: ["matchConstraints", "schedule"] });
const generatingPolicy = common("GeneratingPolicy", gpolSpec, VPOL_VERSIONS);
const namespacedGeneratingPolicy = common("NamespacedGeneratingPolicy", gpolSpec, VPOL_VERSIONS.slice(0, 2));
const deletingPolicy = common("DeletingPolicy", dpolSpec, VPOL_VERSIONS);
const namespacedDeletingPolicy = common("NamespacedDeletingPolicy", dpolSpec, VPOL_VERSIONS.slice(0, 2));
const mpolSpec = obj({
  matchConstraints: matchResources,
  matchConditions: arr(namedExpression("name", "condition name"), "CEL pre-conditions"),
  variables: arr(namedExpression("name", "variable name, used as variables.<name>"), "lazy CEL variables"),
  mutations: arr(obj({
    patchType: oneOf(["ApplyConfiguration", "JSONPatch"], "how the mutation patches"),
    applyConfiguration: obj({ expression: str("CEL: an Object{...} apply configuration") }),
    jsonPatch: obj({ expression: str("CEL: a list of JSONPatch{...}") }),
  }, { required: ["patchType"] })),
  failurePolicy,
  reinvocationPolicy: oneOf(["Never", "IfNeeded"], "run again after later mutations"),
  targetMatchConstraints: obj({ expression: str("CEL: the existing objects to mutate") }, { open: true }),
  evaluation: obj({
    admission: obj({ enabled: bool("run at admission") }),
    mutateExisting: obj({ enabled: bool("mutate existing objects (targetMatchConstraints)") }),
  }),
  autogen: obj({
    podControllers: obj({ controllers: arr(oneOf(["daemonsets", "deployments", "replicasets", "statefulsets",
      "jobs", "cronjobs"], "pod controller"), "controllers to generate variants for ([] for none)") }),
  }),
  webhookConfiguration: obj({ timeoutSeconds: int("webhook timeout") }),
});
const mutatingPolicy = common("MutatingPolicy", mpolSpec, VPOL_VERSIONS);
const namespacedMutatingPolicy = common("NamespacedMutatingPolicy", mpolSpec, VPOL_VERSIONS.slice(0, 2));
const namespace = obj({ apiVersion: oneOf(["v1"], "v1"), kind: oneOf(["Namespace"], "kind"), metadata,
  spec: any("spec"), status: any("status") });

const userInfo = obj({ username: str("user name"), uid: str("uid"), groups: arr(str("group")),
  extra: any("extra attributes") });
const gvk = obj({ group: str("group"), version: str("version"), kind: str("kind") });
const gvr = obj({ group: str("group"), version: str("version"), resource: str("resource") });
const admissionRequest = obj({
  uid: str("request uid"), kind: gvk, resource: gvr, subResource: str("subresource"),
  requestKind: gvk, requestResource: gvr, requestSubResource: str("subresource"),
  name: str("object name"), namespace: str("namespace"),
  operation: oneOf(["CREATE", "UPDATE", "DELETE", "CONNECT"], "operation"),
  userInfo, object: any("the new object"), oldObject: any("the old object (UPDATE, DELETE)"),
  dryRun: bool("dry run"), options: any("create/update/delete options"),
}, { description: "an AdmissionRequest (missing fields are inferred)" });
const admissionReview = obj({ apiVersion: oneOf(["admission.k8s.io/v1"], "API version"),
  kind: oneOf(["AdmissionReview"], "kind"), request: admissionRequest });

export const KIND_SCHEMAS = {
  ValidatingAdmissionPolicy: vap,
  ValidatingAdmissionPolicyBinding: vapb,
  MutatingAdmissionPolicy: map,
  MutatingAdmissionPolicyBinding: mapb,
  ClusterPolicy: clusterPolicy,
  Policy: policy,
  ValidatingPolicy: validatingPolicy,
  NamespacedValidatingPolicy: namespacedValidatingPolicy,
  GeneratingPolicy: generatingPolicy,
  NamespacedGeneratingPolicy: namespacedGeneratingPolicy,
  DeletingPolicy: deletingPolicy,
  NamespacedDeletingPolicy: namespacedDeletingPolicy,
  MutatingPolicy: mutatingPolicy,
  NamespacedMutatingPolicy: namespacedMutatingPolicy,
  Namespace: namespace,
  AdmissionReview: admissionReview,
};

/** A generic Kubernetes object: apiVersion/kind/metadata known, the rest open. */
const genericObject = obj({ apiVersion: str("API version"), kind: str("kind", { suggest: Object.keys(KIND_SCHEMAS)
  .concat(["Deployment", "Pod", "ConfigMap", "Service", "CustomResourceDefinition", "Role", "ClusterRole",
    "RoleBinding", "ClusterRoleBinding"]) }), metadata }, { open: true });

/** The schema for one parsed YAML document: by its kind, by shape for a sample request, else generic. */
export function schemaFor(data, role) {
  if (data && typeof data === "object" && !Array.isArray(data)) {
    if (typeof data.kind === "string" && KIND_SCHEMAS[data.kind]) return KIND_SCHEMAS[data.kind];
    if (role === "request" && data.kind === undefined && (data.operation || data.object || data.oldObject)) {
      return admissionRequest;
    }
  }
  return genericObject;
}

/** The sub-schema at a path of keys ("[]" steps into array items); undefined where unknown. */
export function schemaAt(schema, path) {
  let current = schema;
  for (const step of path) {
    if (!current) return undefined;
    if (step === "[]") current = current.type === "array" ? current.items : undefined;
    else if (current.properties && current.properties[step]) current = current.properties[step];
    else if (current.additionalProperties && typeof current.additionalProperties === "object") {
      current = current.additionalProperties;
    } else return undefined;
  }
  return current;
}
