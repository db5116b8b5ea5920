// CodeMirror 6 editors: YAML with CEL marks, schema completion and lint (local + the engine's diagnostics),
// or a CEL editor for the plain CEL mode. Colours come from CSS variables, so dark mode is CSS only.

import { Annotation, EditorState, Compartment, StateEffect, StateField, Prec, Transaction } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
  placeholder as placeholderExt } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import { HighlightStyle, syntaxHighlighting, indentOnInput, bracketMatching, foldGutter,
  foldKeymap } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";
import { autocompletion, completionKeymap, closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { linter, lintGutter, lintKeymap, forceLinting } from "@codemirror/lint";
import { searchKeymap, highlightSelectionMatches } from "@codemirror/search";
import { celInYaml } from "./cel-in-yaml.js";
import { celLanguage } from "./cel-syntax.js";
import { yamlCompletion, lintYaml, serverDiagnostics } from "./yaml-assist.js";
import { collabExtensions } from "./collab.js";
import { errorRange } from "./locations.js";

/** Marks transactions that came from the server (not typed here), so they are not sent back. */
const remote = Annotation.define();

const highlight = HighlightStyle.define([
  { tag: [t.propertyName, t.definition(t.propertyName)], color: "var(--hl-key)" },
  { tag: [t.string, t.special(t.string), t.content], color: "var(--hl-string)" },
  { tag: [t.number, t.bool, t.null, t.atom], color: "var(--hl-number)" },
  { tag: [t.keyword, t.operatorKeyword], color: "var(--hl-keyword)" },
  { tag: [t.comment, t.lineComment], color: "var(--hl-comment)", fontStyle: "italic" },
  { tag: [t.meta, t.punctuation, t.separator, t.operator], color: "var(--hl-punct)" },
  { tag: [t.variableName], color: "var(--hl-variable)" },
  { tag: [t.function(t.variableName)], color: "var(--hl-function)" },
  { tag: t.typeName, color: "var(--hl-type)" },
]);

const baseTheme = EditorView.theme({
  "&": { backgroundColor: "var(--editor-bg)", color: "var(--fg)", fontSize: "0.8125rem" }, // rem: presenter zoom scales it
  ".cm-content": { fontFamily: "var(--mono)", caretColor: "var(--fg)" },
  ".cm-gutters": { backgroundColor: "var(--editor-gutter)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--editor-active)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--editor-active)" },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--fg)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": {
    backgroundColor: "var(--editor-selection) !important" },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--fg)", border: "1px solid var(--border)" },
});

const setServerErrors = StateEffect.define();
const serverErrorsField = StateField.define({
  create: () => [],
  update(value, transaction) {
    for (const effect of transaction.effects) if (effect.is(setServerErrors)) return effect.value;
    return value;
  },
});

/** Local lint plus the engine's diagnostics; the engine's YAML syntax errors repeat the local ones, so they go. */
function combinedDiagnostics(view, role) {
  const local = lintYaml(view.state.doc.toString(), role);
  const localSyntax = local.some((d) => d.source === "yaml");
  const engine = serverDiagnostics(view.state.doc, view.state.field(serverErrorsField))
    .filter((d) => !(localSyntax && /^invalid YAML/.test(d.message)));
  return [...local, ...engine];
}

/** New engine diagnostics must re-run the linter even when the text did not change. */
const serverErrorsChanged = (update) => update.transactions.some((tr) => tr.effects.some((e) => e.is(setServerErrors)));

/**
 * Create an editor in `parent`.
 * options: {text, language: "yaml"|"cel", role: "document"|"request", readOnly, label, onChange(text),
 *           onRun(), onSave(), placeholder, collab: {version} (co-edited with the server as authority),
 *           onSelection()}
 * Returns {view, getText, setText(text), setServerErrors(errors), setReadOnly(bool), focus(), goTo(line, column),
 * and for co-edited editors the collab host: state(), dispatch(transaction), reset(text, version)}.
 */
export function createEditor(parent, options) {
  const readOnly = new Compartment();
  const language = options.language === "cel" ? celLanguage : yaml();
  const role = options.role || "document";
  const shortcuts = Prec.highest(keymap.of([
    { key: "Mod-Enter", run: () => (options.onRun ? (options.onRun(), true) : false) },
    { key: "Mod-s", run: () => (options.onSave ? (options.onSave(), true) : false), preventDefault: true },
  ]));
  const extensions = [
    shortcuts,
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightActiveLine(),
    drawSelection(),
    history(),
    indentOnInput(),
    bracketMatching(),
    closeBrackets(),
    highlightSelectionMatches(),
    language,
    syntaxHighlighting(highlight),
    baseTheme,
    EditorView.lineWrapping,
    keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...searchKeymap, ...foldKeymap,
      ...completionKeymap, ...lintKeymap, indentWithTab]),
    readOnly.of([EditorState.readOnly.of(Boolean(options.readOnly)), EditorView.editable.of(!options.readOnly)]),
    // tabindex: a read-only editor stays reachable by keyboard (to scroll, select and copy).
    EditorView.contentAttributes.of({ "aria-label": options.label || "editor", "data-role": role, tabindex: "0" }),
    EditorView.updateListener.of((update) => {
      const local = update.transactions.some((tr) => !tr.changes.empty && !tr.annotation(remote)
        && !tr.annotation(Transaction.remote));
      if (update.docChanged && local && options.onChange) options.onChange(update.state.doc.toString());
      if (update.selectionSet && options.onSelection) options.onSelection();
    }),
  ];
  const collabSlot = new Compartment();
  extensions.push(collabSlot.of(options.collab ? collabExtensions(options.collab.version) : []));
  if (options.placeholder) extensions.push(placeholderExt(options.placeholder));
  if (options.language !== "cel") {
    extensions.push(
      foldGutter(),
      celInYaml,
      serverErrorsField,
      autocompletion({ override: [yamlCompletion(role)], activateOnTyping: true }),
      lintGutter(),
      linter((view) => combinedDiagnostics(view, role), { delay: 250, needsRefresh: serverErrorsChanged }),
    );
  } else {
    extensions.push(serverErrorsField, linter((view) =>
      serverDiagnostics(view.state.doc, view.state.field(serverErrorsField)), { delay: 50, needsRefresh: serverErrorsChanged }));
  }
  const view = new EditorView({ parent, state: EditorState.create({ doc: options.text || "", extensions }) });
  return {
    view,
    state: () => view.state,
    dispatch: (transaction) => view.dispatch(transaction),
    /** Start over from the server's text (a client too far behind for the kept history). */
    reset(text, version) {
      const fresh = EditorState.create({ doc: text, extensions });
      view.setState(fresh.update({ effects: collabSlot.reconfigure(collabExtensions(version)) }).state);
    },
    getText: () => view.state.doc.toString(),
    setText(text) {
      if (text === view.state.doc.toString()) return;
      const head = Math.min(view.state.selection.main.head, text.length);
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text },
        selection: { anchor: head }, annotations: remote.of(true) });
    },
    setServerErrors(errors) {
      // Every result brings the errors again, mostly the same: re-linting then would only cost the keystroke.
      const next = errors || [];
      if (JSON.stringify(next) === JSON.stringify(view.state.field(serverErrorsField))) return;
      view.dispatch({ effects: setServerErrors.of(next) });
      forceLinting(view);
    },
    setReadOnly(value) {
      if (view.state.readOnly === value && view.state.facet(EditorView.editable) === !value) return; // each project state asks again
      view.dispatch({ effects: readOnly.reconfigure([EditorState.readOnly.of(value), EditorView.editable.of(!value)]) });
    },
    focus: () => view.focus(),
    /** Put the cursor at 1-based line/column (code points) and show it. */
    goTo(line, column = 1) {
      const { from } = errorRange(view.state.doc, { line, column });
      view.dispatch({ selection: { anchor: from }, scrollIntoView: true });
      view.focus();
    },
    destroy: () => view.destroy(),
  };
}
