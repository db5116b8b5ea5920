// Starting points offered by "+ Document": each is a complete, valid document that evaluates on its own,
// named as a file (made unique by the page). Kept short: a newcomer reads the whole template at a glance.

const vap = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: my-policy
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
    message: "at most 5 replicas"
`;

const binding = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: my-policy-binding
spec:
  policyName: my-policy
  validationActions: [Deny]
`;

const param = `# A parameter object: a policy reads it as \`params\` when its binding has a paramRef.
apiVersion: v1
kind: ConfigMap
metadata:
  name: my-params
  namespace: default
data:
  maxReplicas: "5"
`;

const namespace = `# Namespaces give namespaceSelector and namespaceObject something to look at.
apiVersion: v1
kind: Namespace
metadata:
  name: default
  labels:
    environment: test
`;

const map = `apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: add-owner-label
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"owner": "platform"}}}
---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: add-owner-label-binding
spec:
  policyName: add-owner-label
`;

const kyverno = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-team-label
spec:
  validationFailureAction: Enforce
  rules:
  - name: check-team
    match:
      any:
      - resources:
          kinds: [Pod]
    validate:
      message: "The label team is required."
      pattern:
        metadata:
          labels:
            team: "?*"
`;

const rbac = `# RBAC for authorizer checks: who may do what, used by \`authorizer\` in CEL.
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: deployment-editor
rules:
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "create", "update"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: deployment-editors
subjects:
- kind: User
  name: alice
  apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: ClusterRole
  name: deployment-editor
  apiGroup: rbac.authorization.k8s.io
`;

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`;

export const DOCUMENT_TEMPLATES = [
  { label: "ValidatingAdmissionPolicy", hint: "a CEL rule for Deployments", name: "policy.yaml", text: vap },
  { label: "Binding", hint: "puts a policy into effect", name: "binding.yaml", text: binding },
  { label: "Param (ConfigMap)", hint: "values a binding passes as params", name: "params.yaml", text: param },
  { label: "Namespace", hint: "labels for namespaceSelector", name: "namespace.yaml", text: namespace },
  { label: "MutatingAdmissionPolicy", hint: "adds a label to new Pods", name: "mutating-policy.yaml", text: map },
  { label: "Kyverno ClusterPolicy", hint: "a validate pattern", name: "kyverno-policy.yaml", text: kyverno },
  { label: "ClusterRole and binding", hint: "RBAC for authorizer checks", name: "rbac.yaml", text: rbac },
  { label: "CustomResourceDefinition", hint: "a custom kind to write policies for", name: "crd.yaml", text: crd },
  { label: "Empty document", hint: "start from nothing", name: "document.yaml", text: "" },
];
