// Completion and lint for YAML editors: field names and enum values from schemas.js, CEL words inside
// expressions, YAML syntax errors, schema warnings and the engine's own diagnostics at their line/column.

import { parse as parseYaml, parseAllDocuments, isMap, isSeq, isScalar } from "yaml";
import { schemaFor, schemaAt } from "./schemas.js";
import { pathAbove, documentAround } from "./yaml-path.js";
import { inCelRange } from "./cel-in-yaml.js";
import { errorRange, messageNode } from "./locations.js";
import { ruleFields } from "./crd-rules.js";

function documentData(segment) {
  try {
    return parseYaml(segment, { prettyErrors: false });
  } catch {
    const kind = /^kind:\s*["']?([A-Za-z]+)/m.exec(segment);
    return kind ? { kind: kind[1] } : null;
  }
}

const CEL_ROOTS = ["object", "oldObject", "params", "request", "namespaceObject", "variables", "authorizer",
  "has(", "size(", "string(", "int(", "double(", "duration(", "timestamp(", "quantity(", "ip(", "cidr(",
  "url(", "semver(", "format.dns1123Label()", "true", "false", "null"];
const CEL_MEMBERS = ["all(x, ", "exists(x, ", "exists_one(x, ", "map(x, ", "filter(x, ", "size()", "contains(",
  "startsWith(", "endsWith(", "matches(", "lowerAscii()", "upperAscii()", "split(", "join(", "replace(",
  "trim()", "indexOf(", "orValue(", "hasValue()", "value()", "isSorted()", "sum()", "min()", "max()",
  "metadata", "spec", "status", "name", "namespace", "labels", "annotations", "kind", "operation", "userInfo"];

/** The CRD around the cursor even while the rule being typed breaks the YAML (an unclosed quote): the
 * document parsed again with the cursor's line reduced to its key. */
function crdData(data, lines, cursorLine) {
  if (data?.spec || data?.kind !== "CustomResourceDefinition") return data;
  const patched = [...lines];
  const line = lines[cursorLine];
  const keyed = /^(\s*(?:-\s+)*[\w.-]+:)/.exec(line);
  patched[cursorLine] = keyed ? `${keyed[1]} x` : "";
  const pos = patched.slice(0, cursorLine).reduce((n, l) => n + l.length + 1, 0);
  return documentData(documentAround(patched.join("\n"), pos).segment) || data;
}

function celCompletion(context, data, lines, cursorLine) {
  if (data?.kind === "CustomResourceDefinition") {
    data = crdData(data, lines, cursorLine);
    // A CRD rule: `self.` (and deeper selections) offers the fields of the schema where the rule sits.
    const chain = context.matchBefore(/\b(?:self|oldSelf)(?:\.[A-Za-z_]\w*|\[[^\]\[]*\])*\.\w*$/);
    if (chain) {
      const dot = chain.text.lastIndexOf(".");
      const options = ruleFields(data, lines, cursorLine, chain.text.slice(0, dot));
      if (options) {
        return { from: chain.from + dot + 1, validFor: /^\w*$/,
          options: [...options, ...CEL_MEMBERS.slice(0, 24).map((m) => ({ label: m, type: "method", boost: -1 }))] };
      }
    }
  }
  const word = context.matchBefore(/[A-Za-z_][\w]*\.?[\w]*$|\.\w*$/);
  if (!word && !context.explicit) return null;
  const text = word ? word.text : "";
  if (text.startsWith("variables.")) {
    // A VAP's spec.variables, or a Kyverno rule's validate.cel.variables.
    const lists = [data?.spec?.variables, ...(Array.isArray(data?.spec?.rules) ? data.spec.rules.map((r) => r?.validate?.cel?.variables) : [])];
    const names = [...new Set(lists.filter(Array.isArray).flat().map((v) => v && v.name).filter((n) => typeof n === "string"))];
    return { from: word.from + "variables.".length, options: names.map((n) => ({ label: n, type: "variable" })) };
  }
  const dot = text.lastIndexOf(".");
  if (dot >= 0) {
    return { from: word.from + dot + 1, options: CEL_MEMBERS.map((m) => ({ label: m, type: "method" })),
      validFor: /^\w*$/ };
  }
  const roots = data?.kind === "CustomResourceDefinition" ? ["self", "oldSelf", ...CEL_ROOTS.slice(7)] : CEL_ROOTS;
  return { from: word ? word.from : context.pos, options: roots.map((r) => ({ label: r, type: "variable" })),
    validFor: /^\w*$/ };
}

function option(name, schema) {
  const container = schema && (schema.type === "object" || schema.type === "array");
  return { label: name, type: "property", detail: schema?.type || "", info: schema?.description || undefined,
    apply: container ? `${name}:` : `${name}: ` };
}

/** A CodeMirror completion source for one editor role ("document" or "request"). */
export function yamlCompletion(role) {
  return (context) => {
    const { state, pos } = context;
    const text = state.doc.toString();
    const { lines, cursorLine, first, segment } = documentAround(text, pos);
    const data = documentData(segment);
    if (inCelRange(text, pos)) return celCompletion(context, data, lines, cursorLine);
    const lineStart = state.doc.line(cursorLine + 1).from;
    const before = text.slice(lineStart, pos);
    const schema = schemaFor(data, role);
    const docLines = lines.slice(first, cursorLine + 1);
    const keyMatch = /^(\s*)((?:-\s+)*)([A-Za-z0-9_.-]*)$/.exec(before);
    if (keyMatch) {
      if (!keyMatch[3] && !context.explicit) return null;
      const column = keyMatch[1].length + keyMatch[2].length;
      const path = pathAbove(docLines, docLines.length - 1, column,
        { currentDash: keyMatch[2].length > 0, dashColumn: keyMatch[1].length });
      const here = path && schemaAt(schema, path);
      const scalars = here?.enum || here?.suggest;
      if (keyMatch[2] && scalars) { // "- W|" in a list of enum values
        return { from: pos - keyMatch[3].length, options: scalars.map((v) => ({ label: v, type: "enum" })) };
      }
      if (!here || !here.properties) return null;
      return { from: pos - keyMatch[3].length, validFor: /^[\w.-]*$/,
        options: Object.entries(here.properties).map(([name, sub]) => option(name, sub)) };
    }
    const valueMatch = /^(\s*)((?:-\s+)*)([A-Za-z0-9_.-]+):\s+([^\s#]*)$/.exec(before);
    if (valueMatch) {
      const column = valueMatch[1].length + valueMatch[2].length;
      const path = pathAbove(docLines, docLines.length - 1, column,
        { currentDash: valueMatch[2].length > 0, dashColumn: valueMatch[1].length });
      const here = path && schemaAt(schema, [...path, valueMatch[3]]);
      const values = here?.enum || here?.suggest || (here?.type === "boolean" ? ["true", "false"] : null);
      if (!values) return null;
      return { from: pos - valueMatch[4].length, options: values.map((v) => ({ label: v, type: "enum" })) };
    }
    return null;
  };
}

// ---- lint --------------------------------------------------------------------------------------------

function typeName(node) {
  if (isMap(node)) return "object";
  if (isSeq(node)) return "list";
  if (isScalar(node)) return node.value === null ? "null" : typeof node.value;
  return "unknown";
}

function rangeOf(node, fallback) {
  return node?.range ? { from: node.range[0], to: Math.max(node.range[1], node.range[0] + 1) } : fallback;
}

function checkNode(node, schema, path, out, keyRange) {
  if (!schema || !node) return;
  const where = rangeOf(node, keyRange);
  const label = path.join(".") || "document";
  if (isScalar(node) && node.value === null) return;
  if (schema.type === "object") {
    if (!isMap(node)) {
      out.push({ ...where, severity: "warning", message: `${label}: expected an object, got ${typeName(node)}` });
      return;
    }
    const present = new Set();
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : null;
      if (key === null) continue;
      present.add(key);
      let sub = schema.properties?.[key];
      if (!sub && typeof schema.additionalProperties === "object") sub = schema.additionalProperties;
      if (!sub && schema.properties && schema.additionalProperties === false) {
        const known = Object.keys(schema.properties).join(", ");
        out.push({ ...rangeOf(pair.key, where), severity: "warning",
          message: `unknown field "${[...path, key].join(".")}" (known here: ${known})` });
        continue;
      }
      checkNode(pair.value, sub, [...path, key], out, rangeOf(pair.key, where));
    }
    for (const name of schema.required || []) {
      if (!present.has(name)) {
        out.push({ ...(keyRange || { from: where.from, to: where.from + 1 }), severity: "warning",
          message: `${label}: missing required field "${name}"` });
      }
    }
  } else if (schema.type === "array") {
    if (!isSeq(node)) {
      out.push({ ...where, severity: "warning", message: `${label}: expected a list, got ${typeName(node)}` });
      return;
    }
    node.items.forEach((item, index) => checkNode(item, schema.items, [...path, `[${index}]`], out, where));
  } else if (schema.type && isScalar(node)) {
    const value = node.value;
    const ok = schema.type === "string" ? typeof value === "string"
      : schema.type === "integer" ? Number.isInteger(value)
        : schema.type === "boolean" ? typeof value === "boolean" : true;
    if (!ok) out.push({ ...where, severity: "warning", message: `${label}: expected ${schema.type}, got ${typeName(node)}` });
    else if (schema.enum && !schema.enum.includes(value)) {
      out.push({ ...where, severity: "warning",
        message: `${label}: unsupported value "${value}": supported values: ${schema.enum.map((v) => `"${v}"`).join(", ")}` });
    }
  } else if (schema.type && !isScalar(node)) {
    out.push({ ...where, severity: "warning", message: `${label}: expected ${schema.type}, got ${typeName(node)}` });
  }
}

/** Local diagnostics of a YAML text: syntax errors, then schema warnings of each well-formed document. */
export function lintYaml(text, role) {
  const out = [];
  let documents;
  try {
    documents = parseAllDocuments(text, { prettyErrors: false });
  } catch (failure) {
    return [{ from: 0, to: Math.min(1, text.length), severity: "error", message: String(failure.message) }];
  }
  if (!Array.isArray(documents)) documents = [documents];
  for (const doc of documents) {
    // One mistake often yields several parser errors (the rest follow from the first): mark the first only.
    for (const error of doc.errors.slice(0, 1)) {
      out.push({ from: error.pos[0], to: Math.max(error.pos[1], error.pos[0]), severity: "error",
        message: `YAML: ${error.message}`, source: "yaml" });
    }
    if (doc.errors.length || !doc.contents) continue;
    let data;
    try {
      data = doc.toJS();
    } catch {
      continue;
    }
    if (role === "input") continue; // plain CEL input: any YAML is fine
    const schema = schemaFor(data, role);
    const schemaOut = [];
    checkNode(doc.contents, schema, [], schemaOut, undefined);
    out.push(...schemaOut.map((d) => ({ ...d, source: "schema" })));
  }
  const length = text.length;
  return out.map((d) => {
    let from = Math.min(d.from, length);
    let to = Math.min(Math.max(d.to, from), length);
    // An empty range, or one over line breaks only, draws no squiggle (an unclosed quote is found at the end
    // of the text): mark the last visible character at or before it instead.
    if (length && !text.slice(from, to).replace(/[\r\n]/g, "")) {
      let at = Math.min(from, length - 1);
      while (at > 0 && (text[at] === "\n" || text[at] === "\r")) at -= 1;
      from = at;
      to = at + 1;
    }
    return { ...d, from, to };
  });
}

/** The engine's diagnostics ({line, column, endLine, endColumn, message, severity, path, hint}) as ranges in
 * `doc`; an error about an object with no text (`located: false`) has no place to mark. */
export function serverDiagnostics(doc, errors) {
  return (errors || []).filter((error) => error.located !== false && error.line).map((error) => {
    const { from, to } = errorRange(doc, error);
    const path = error.path ? `${error.path}: ` : "";
    const message = error.message && error.path && error.message.startsWith(error.path) ? error.message
      : `${path}${error.message || "error"}`;
    const severity = error.severity === "warning" || error.severity === "info" ? error.severity : "error";
    return { from, to, severity, message, source: "engine",
      renderMessage: () => messageNode(message, error.hint) };
  });
}
