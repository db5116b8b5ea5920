"""Co-editing of document and request texts: the server is the central authority of @codemirror/collab.

Why this library rather than Yjs: the server must stay the single source of truth for what is saved, and
the authority pattern of `@codemirror/collab` gives exactly that — one linear, numbered history of changes per
text, kept in the database. A client's push made on an older version is rebased over what it missed, as the
library's `rebaseUpdates` does (over each missed change in turn), and saved at once (no refusal and second
round trip); the client receives what it missed followed by its own changes as saved, and the library's
`receiveUpdates` (one change at a time) brings it to the same text. Undo stays per user because remote changes never enter the local history.

`changes` is CodeMirror's change-set arithmetic in Python, `rebase` the rebase, `authority` stores and
serves the history, and `text_save` is the short save of one text and its history rows that a keystroke takes
(a push made on the newest text, or a whole-text edit).
"""
