"""Co-editing of document and request texts: the server is the central authority of @codemirror/collab.

Why this library rather than Yjs: the server must stay the single source of truth for what is saved, and
the authority pattern of `@codemirror/collab` gives exactly that — one linear, numbered history of changes per
text, kept in the database; a client's change is accepted only on top of the newest version, otherwise the
client receives what it missed, rebases its own unconfirmed changes (the library does that) and sends them
again. The server never has to merge or transform anything; it applies change sets in order. Undo stays per
user because remote changes never enter the local history.

`changes` applies CodeMirror change sets to Python text; `authority` stores and serves the history.
"""
