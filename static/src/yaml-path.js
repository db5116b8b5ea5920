// Where the cursor is in a YAML document, from indentation alone (it must work while the text is broken):
// the key path above a line ("[]" for a list item) and the kind of the enclosing document.

const LINE = /^(\s*)((?:-\s+)*)(?:([A-Za-z0-9_.\-/]+|"[^"]*"|'[^']*'):(?:\s+(.*)|$))?/;

function parse(line) {
  const match = LINE.exec(line);
  const indent = match[1].length;
  const dashes = match[2] || "";
  const key = match[3] ? match[3].replace(/^["']|["']$/g, "") : null;
  const value = match[4] !== undefined ? match[4].replace(/\s+#.*$/, "").trim() : "";
  return { indent, dash: dashes.length > 0, keyColumn: indent + dashes.length, key, hasValue: value !== "" };
}

function skippable(line) {
  const trimmed = line.trim();
  return trimmed === "" || trimmed.startsWith("#");
}

/**
 * The key path of a position whose key starts at `column` on line `lineIndex` of `lines`.
 * `currentDash` tells whether that line begins a list item (`- key`); its dash is then at `dashColumn`.
 */
export function pathAbove(lines, lineIndex, column, { currentDash = false, dashColumn = 0 } = {}) {
  const path = [];
  let target = column;
  let seqColumn = currentDash ? dashColumn : null;
  for (let i = lineIndex - 1; i >= 0; i--) {
    if (skippable(lines[i])) continue;
    if (/^(---|\.\.\.)\s*$/.test(lines[i])) break;
    const line = parse(lines[i]);
    if (seqColumn !== null) {
      if (line.dash && line.indent === seqColumn) continue; // a sibling item
      if (line.key && !line.hasValue && line.keyColumn <= seqColumn) {
        path.unshift(line.key, "[]");
        target = line.keyColumn;
        seqColumn = null;
        if (line.dash) seqColumn = line.indent;
        continue;
      }
      if (line.keyColumn < seqColumn) return null;
      continue;
    }
    if (line.dash && line.indent < target) {
      // Inside this list item's mapping: its key is the parent (when deeper) or a sibling.
      if (line.key && !line.hasValue && line.keyColumn < target) path.unshift(line.key);
      seqColumn = line.indent;
      continue;
    }
    if (line.keyColumn < target) {
      if (!line.key || line.hasValue) return null;
      path.unshift(line.key);
      target = line.keyColumn;
    }
  }
  return seqColumn !== null ? null : path;
}

/** The text of the YAML document (between `---` lines) around `pos`, and its first line index. */
export function documentAround(text, pos) {
  const lines = text.split("\n");
  let offset = 0;
  let cursorLine = 0;
  for (let i = 0; i < lines.length; i++) {
    if (pos <= offset + lines[i].length) {
      cursorLine = i;
      break;
    }
    offset += lines[i].length + 1;
    cursorLine = i;
  }
  let first = cursorLine;
  while (first > 0 && !/^---/.test(lines[first - 1])) first--;
  let last = cursorLine;
  while (last < lines.length - 1 && !/^---/.test(lines[last + 1])) last++;
  return { lines, cursorLine, first, segment: lines.slice(first, last + 1).join("\n") };
}
