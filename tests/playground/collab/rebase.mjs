// The real @codemirror/collab, as a reference for the server's rebase (test_rebase.py). Reads one JSON case
// per line on stdin and answers one JSON line each:
//   {doc, over: [{changes, clientID}], updates: [{changes, clientID}], later}  (updates made on `doc`; over
//   too; `later`: typed after the push)
// → {rebased: updates moved by rebaseUpdates over each change of over in turn, as JSON (the server's steps),
//    server: the text after over and rebased,
//    client: the text of an editor that typed `updates` + `later` and then received over + rebased one by one
//    (the client's steps),
//    clientOnServer: the server's text after the editor's still unsent changes, unsent: their count}

import { ChangeSet, EditorState } from "@codemirror/state";
import { collab, getSyncedVersion, rebaseUpdates, receiveUpdates, sendableUpdates } from "@codemirror/collab";
import { createInterface } from "node:readline";

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  let answer;
  try {
    const { doc, over, updates, later = [] } = JSON.parse(line);
    const read = (list) => list.map((u) => ({ changes: ChangeSet.fromJSON(u.changes), clientID: u.clientID }));
    const overSets = read(over);
    const ownSets = read(updates);
    // The server's steps: the push moved over each missed change on its own.
    let rebased = ownSets;
    for (const update of overSets) rebased = rebaseUpdates(rebased, [update]);
    let server = EditorState.create({ doc }).doc;
    for (const u of [...overSets, ...rebased]) server = u.changes.apply(server);
    const clientIDs = new Set(updates.map((u) => u.clientID));
    let state = EditorState.create({ doc, extensions: [collab({ clientID: [...clientIDs][0] ?? "me" })] });
    for (const u of ownSets) state = state.update({ changes: u.changes }).state;
    // Typed after the push: still unsent when its answer arrives.
    for (const u of read(later)) state = state.update({ changes: u.changes }).state;
    // The first `split` missed changes arrive on their own (broadcast while the push was on its way).
    // The client's steps: each change received on its own (static/src/collab.js).
    for (const update of [...overSets, ...rebased]) state = receiveUpdates(state, [update]).state;
    // What is still unsent, sent now on top of the newest version, gives the client's text on the server.
    let serverAfter = server;
    for (const u of sendableUpdates(state)) serverAfter = u.changes.apply(serverAfter);
    answer = {
      rebased: rebased.map((u) => ({ changes: u.changes.toJSON(), clientID: u.clientID })),
      server: server.toString(),
      client: state.doc.toString(),
      clientOnServer: serverAfter.toString(),
      unsent: sendableUpdates(state).length,
      version: getSyncedVersion(state),
    };
  } catch (error) {
    answer = { error: String(error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
