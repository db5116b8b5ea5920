// CEL tokens for highlighting: a small scanner shared by the CEL editor (a StreamLanguage) and the
// YAML editors (marks inside `expression:`-like values). Highlighting only: the server is the parser.

import { StreamLanguage } from "@codemirror/language";

const KEYWORDS = new Set(["true", "false", "null", "in"]);
const RESERVED = new Set(["object", "oldObject", "params", "request", "namespaceObject", "variables",
  "authorizer", "self", "oldSelf", "Object", "has", "all", "exists", "exists_one", "map", "filter"]);

const PATTERNS = [
  ["comment", /^\/\/.*/],
  ["string", /^[rRbB]{0,2}("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?)/],
  ["number", /^(?:0x[0-9a-fA-F]+u?|\d+\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\d+(?:[eE][+-]?\d+)?u?)/],
  ["operator", /^(?:&&|\|\||==|!=|<=|>=|[-+*/%!<>?:])/],
  ["punctuation", /^[()[\]{}.,]/],
  ["word", /^[A-Za-z_][A-Za-z0-9_]*/],
  ["space", /^\s+/],
];

/** Scan `text` into [{from, to, type}] with type keyword|string|number|operator|variable|function|comment. */
export function celTokens(text) {
  const tokens = [];
  let position = 0;
  while (position < text.length) {
    const rest = text.slice(position);
    let matched = false;
    for (const [type, pattern] of PATTERNS) {
      const match = pattern.exec(rest);
      if (!match || match[0].length === 0) continue;
      const end = position + match[0].length;
      const kind = type === "word" ? wordType(match[0], text, end) : type;
      if (kind && kind !== "space" && kind !== "punctuation") tokens.push({ from: position, to: end, type: kind });
      position = end;
      matched = true;
      break;
    }
    if (!matched) position += 1;
  }
  return tokens;
}

function wordType(word, text, end) {
  if (KEYWORDS.has(word)) return "keyword";
  if (/^\s*\(/.test(text.slice(end))) return "function";
  if (RESERVED.has(word)) return "variable";
  return null;
}

const STREAM_STYLE = {
  keyword: "keyword", string: "string", number: "number", operator: "operator",
  variable: "variableName", function: "variableName.function", comment: "comment",
};

/** CEL as a CodeMirror language, for the plain CEL mode's expression editor. */
export const celLanguage = StreamLanguage.define({
  name: "cel",
  token(stream) {
    if (stream.eatSpace()) return null;
    const rest = stream.string.slice(stream.pos);
    const [token] = celTokens(rest).filter((t) => t.from === 0);
    if (token) {
      stream.pos += token.to;
      return STREAM_STYLE[token.type] || null;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*|^./.exec(rest);
    stream.pos += word ? word[0].length : 1;
    return null;
  },
  languageData: { closeBrackets: { brackets: ["(", "[", "{", "'", '"'] } },
});
