// Starter expressions for the plain CEL mode (each with an input), in the spirit of the CEL Playground's list.

export const CEL_EXAMPLES = [
  { title: "Replica limit", expression: "object.spec.replicas <= params.maxReplicas",
    input: "object:\n  spec:\n    replicas: 3\nparams:\n  maxReplicas: 5\n" },
  { title: "Image registry", expression: "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))",
    input: "object:\n  spec:\n    containers:\n    - name: web\n      image: registry.example.com/web:1.2\n    - name: sidecar\n      image: docker.io/envoy:1.30\n" },
  { title: "Required labels", expression: "['app', 'team'].all(l, l in object.metadata.labels)",
    input: "object:\n  metadata:\n    labels:\n      app: web\n" },
  { title: "Quantity", expression: "quantity(object.spec.resources.limits.memory).isLessThan(quantity('1Gi'))",
    input: "object:\n  spec:\n    resources:\n      limits:\n        memory: 512Mi\n" },
  { title: "Optional field", expression: "object.?spec.?replicas.orValue(1) > 0",
    input: "object:\n  metadata:\n    name: no-spec\n" },
  { title: "Regex and strings", expression: "object.metadata.name.matches('^[a-z0-9-]+$') && object.metadata.name.size() <= 63",
    input: "object:\n  metadata:\n    name: web-frontend\n" },
  { title: "Map and filter", expression: "object.spec.containers.filter(c, !has(c.resources)).map(c, c.name)",
    input: "object:\n  spec:\n    containers:\n    - name: a\n      resources: {}\n    - name: b\n    - name: c\n" },
  { title: "IP and CIDR", expression: "cidr('10.0.0.0/8').containsIP(ip(object.spec.clusterIP))",
    input: "object:\n  spec:\n    clusterIP: 10.96.0.10\n" },
  { title: "Semver", expression: "semver(object.version).isGreaterThan(semver('1.2.0'))", input: "object:\n  version: 1.10.0\n" },
  { title: "Duration and timestamp", expression: "timestamp(object.until) - timestamp(object.from) < duration('24h')",
    input: "object:\n  from: '2026-01-01T00:00:00Z'\n  until: '2026-01-01T12:30:00Z'\n" },
];
