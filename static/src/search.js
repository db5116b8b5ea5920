// Word-start search: every word of the query must begin a word of the text, case-insensitively.
// So "map" finds "MAP" and "mapping" but not "ConfigMap", and "match" finds "matchConditions".

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A predicate text -> bool for `query` (an empty query matches everything). */
export function wordMatcher(query) {
  const words = String(query || "").trim().split(/\s+/).filter(Boolean);
  const patterns = words.map((word) => new RegExp(`(^|[^\\p{L}\\p{N}])${escape(word)}`, "iu"));
  return (text) => patterns.every((pattern) => pattern.test(text));
}
