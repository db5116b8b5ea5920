// Share links for the plain CEL mode: the expression and the input travel in the URL's fragment
// (#expr=…&input=…), so nothing is stored on the server and the link works offline of any account.

export function shareHash(expression, input) {
  const params = new URLSearchParams({ expr: expression, input });
  return `#${params.toString()}`;
}

/** {expression, input} from a location hash made by shareHash, or null. */
export function readShareLink(hash) {
  if (!hash || hash.length < 2) return null;
  const params = new URLSearchParams(hash.slice(1));
  if (!params.has("expr")) return null;
  return { expression: params.get("expr") || "", input: params.get("input") || "" };
}
