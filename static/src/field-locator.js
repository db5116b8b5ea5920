// Maps the type checker's findings (policy name, fieldRef such as spec.validations[0].expression, line and
// column inside the expression) to a line and column of the document that holds the policy.

import { parseAllDocuments, isMap, isSeq, isScalar, Scalar } from "yaml";
import { textIndex } from "./locations.js";

function steps(fieldRef) {
  const out = [];
  for (const match of fieldRef.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(match[2] !== undefined ? Number(match[2]) : match[1]);
  return out;
}

function nodeAt(root, path) {
  let node = root;
  for (const step of path) {
    if (typeof step === "number") node = isSeq(node) ? node.items[step] : undefined;
    else node = isMap(node) ? node.items.find((pair) => isScalar(pair.key) && pair.key.value === step)?.value : undefined;
    if (!node) return undefined;
  }
  return node;
}

function lineColumn(text, offset) {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/** {line, column} in `text` of position (exprLine, exprColumn) of the expression at `fieldRef` of policy `name`. */
export function locateField(text, name, fieldRef, exprLine = 1, exprColumn = 1) {
  let documents;
  try {
    documents = parseAllDocuments(text, { prettyErrors: false });
  } catch {
    return null;
  }
  for (const doc of Array.isArray(documents) ? documents : [documents]) {
    if (doc.errors.length || !isMap(doc.contents)) continue;
    const metadataName = nodeAt(doc.contents, ["metadata", "name"]);
    if (!metadataName || metadataName.value !== name) continue;
    const node = nodeAt(doc.contents, steps(fieldRef));
    if (!node || !isScalar(node) || !node.range) return null;
    const start = node.range[0];
    if (node.type === Scalar.BLOCK_LITERAL || node.type === Scalar.BLOCK_FOLDED) {
      const target = text.slice(start).split("\n")[exprLine] ?? ""; // line 0 holds the | or > indicator
      const indent = target.length - target.trimStart().length;
      const where = lineColumn(text, start);
      return { line: where.line + exprLine, column: indent + exprColumn };
    }
    const quoted = node.type === Scalar.QUOTE_DOUBLE || node.type === Scalar.QUOTE_SINGLE;
    const where = lineColumn(text, start + (quoted ? 1 : 0));
    return exprLine === 1 ? { line: where.line, column: where.column + exprColumn - 1 } : where;
  }
  return null;
}

/**
 * Diagnostics for each document id from the typecheck map {policyName: report}: {docId: [errors]}.
 * The engine places each diagnostic itself (`location`: line/column in the text it was given, `document` i =
 * the i-th document of `order`); without it, the policy is looked up in the current texts.
 */
export function typecheckDiagnostics(typecheck, documents, order = []) {
  const byDocument = new Map();
  const add = (id, place, d) => {
    const list = byDocument.get(String(id)) || [];
    // "info": a fact about the expression (a CRD rule's estimated cost), not a finding of the type checker
    const severity = d.severity === "error" || d.severity === "info" ? d.severity : "warning";
    list.push({ ...place, severity, message: severity === "info" ? d.message : `type check: ${d.fieldRef}: ${d.message}`,
      path: null });
    byDocument.set(String(id), list);
  };
  for (const [policy, report] of Object.entries(typecheck || {})) {
    for (const d of report?.diagnostics || []) {
      if (!d.fieldRef) continue;
      const at = d.location;
      const index = at ? textIndex(at) : null;
      const id = index !== null ? order[index] : at && documents.length === 1 ? documents[0].id : undefined;
      if (at?.line && id !== undefined) {
        add(id, { line: at.line, column: at.column, endLine: at.endLine, endColumn: at.endColumn }, d);
        continue;
      }
      for (const { id: docId, text } of documents) {
        const place = locateField(text, policy, d.fieldRef, d.line || 1, d.column || 1);
        if (!place) continue;
        add(docId, place, d);
        break;
      }
    }
  }
  return byDocument;
}
