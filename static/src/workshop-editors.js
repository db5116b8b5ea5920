// The CodeMirror editor for the workshop pages (static/workshops/*.js load this bundle when it is built).
export { createEditor } from "./editors.js";
