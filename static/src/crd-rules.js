// CRD validation rules in the editor: the schema node an `x-kubernetes-validations` rule sits at (from the
// YAML path above the cursor) and what `self.` / `oldSelf.` can select there, with property names escaped
// as Kubernetes' CEL sees them (apiserver cel/escaping.go).

import { pathAbove } from "./yaml-path.js";

const RESERVED = new Set(["true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
  "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"]);
const RULE_KEY = /^(\s*)((?:-\s+)*)(rule|messageExpression):/;

/** The CEL identifier of a property name, or null when Kubernetes cannot escape it. */
export function celName(name) {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return null;
  return name.replaceAll("__", "__underscores__").replaceAll(".", "__dot__").replaceAll("-", "__dash__")
    .replaceAll("/", "__slash__");
}

/** The YAML key path of the rule whose text holds line `lineIndex` (the rule key may be a line above). */
function rulePath(lines, lineIndex) {
  for (let i = lineIndex; i >= 0 && i > lineIndex - 200; i--) {
    const match = RULE_KEY.exec(lines[i]);
    if (!match) continue;
    const column = match[1].length + match[2].length;
    const path = pathAbove(lines, i, column, { currentDash: match[2].length > 0, dashColumn: match[1].length });
    return path ? [...path, match[3]] : null;
  }
  return null;
}

function roots(crd) {
  const spec = crd?.spec || {};
  const out = (Array.isArray(spec.versions) ? spec.versions : []).map((v) => v?.schema?.openAPIV3Schema);
  out.push(spec.validation?.openAPIV3Schema);
  return out.filter((s) => s && typeof s === "object");
}

/** Follow the schema keys of a YAML path (…openAPIV3Schema.properties.spec.items…) from `schema`. */
function follow(schema, keys) {
  let node = schema;
  for (let i = 0; i < keys.length && node; i++) {
    const key = keys[i];
    if (key === "properties") node = node.properties?.[keys[++i]];
    else if (key === "items" || key === "additionalProperties" || key === "not") node = node[key];
    else return null; // allOf/anyOf/oneOf items: not a place whose type self has
  }
  return node && typeof node === "object" ? node : null;
}

/** The schema node of the rule the cursor is in, and whether it is the resource's root. */
export function ruleSchema(crd, lines, lineIndex) {
  const path = rulePath(lines, lineIndex);
  if (!path) return null;
  const at = path.indexOf("openAPIV3Schema");
  const end = path.lastIndexOf("x-kubernetes-validations");
  if (at < 0 || end < at) return null;
  const keys = path.slice(at + 1, end);
  for (const root of roots(crd)) { // with several versions: the first whose schema has this place
    const node = follow(root, keys);
    if (node) return { node, isRoot: keys.length === 0 };
  }
  return null;
}

const META = { type: "object", properties: { name: { type: "string" }, generateName: { type: "string" } } };

function fieldsOf(node, isRoot) {
  const props = { ...(node?.properties || {}) };
  if (isRoot || node?.["x-kubernetes-embedded-resource"]) { // WithTypeAndObjectMeta
    props.apiVersion ??= { type: "string" };
    props.kind ??= { type: "string" };
    props.metadata = props.metadata?.properties ? props.metadata : META;
  }
  return props;
}

/** Walk `.name` and `[…]` steps of a CEL selection chain from `node`. */
function select(node, isRoot, steps) {
  let current = node;
  let root = isRoot;
  for (const step of steps) {
    if (!current) return null;
    if (step === "[]") current = current.items || current.additionalProperties;
    else {
      const props = fieldsOf(current, root);
      const name = Object.keys(props).find((p) => celName(p) === step);
      current = name ? props[name] : (typeof current.additionalProperties === "object" ? current.additionalProperties : null);
    }
    root = false;
  }
  return current ? { node: current, isRoot: root } : null;
}

function typeLabel(schema) {
  if (schema?.["x-kubernetes-int-or-string"]) return "int-or-string";
  const type = schema?.type || "";
  return schema?.format ? `${type} (${schema.format})` : type;
}

/**
 * Completion options after `self.` / `oldSelf.` (and deeper selections, `self.list[0].`) in a CRD rule:
 * `chain` is the text of the selection before the last dot, e.g. "self.spec.items[0]".
 */
export function ruleFields(crd, lines, lineIndex, chain) {
  const place = ruleSchema(crd, lines, lineIndex);
  if (!place) return null;
  const steps = [];
  for (const match of chain.replace(/^(self|oldSelf)/, "").matchAll(/\.([A-Za-z_]\w*)|\[[^\]]*\]/g)) {
    steps.push(match[1] ?? "[]");
  }
  const found = select(place.node, place.isRoot, steps);
  if (!found) return null;
  return Object.entries(fieldsOf(found.node, found.isRoot))
    .map(([name, schema]) => ({ name: celName(name), schema }))
    .filter((f) => f.name !== null)
    .map(({ name, schema }) => ({ label: name, type: "property", detail: typeLabel(schema),
      info: schema?.description || undefined }));
}
