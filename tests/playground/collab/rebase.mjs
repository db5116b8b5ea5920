// The real @codemirror/collab, as a reference for the server's rebase (test_rebase.py). Reads one JSON case
// per line on stdin and answers one JSON line each:
//   {doc, over: [{changes, clientID}], updates: [{changes, clientID}]}  (updates made on `doc`; over too)
// → {rebased: rebaseUpdates(updates, over) as JSON, server: the text after over and rebased,
//    client: the text of an editor that typed `updates` and then received over + rebased, unsent: its count}

import { ChangeSet, EditorState } from "@codemirror/state";
import { collab, getSyncedVersion, rebaseUpdates, receiveUpdates, sendableUpdates } from "@codemirror/collab";
import { createInterface } from "node:readline";

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  let answer;
  try {
    const { doc, over, updates } = JSON.parse(line);
    const read = (list) => list.map((u) => ({ changes: ChangeSet.fromJSON(u.changes), clientID: u.clientID }));
    const overSets = read(over);
    const ownSets = read(updates);
    const rebased = rebaseUpdates(ownSets, overSets);
    let server = EditorState.create({ doc }).doc;
    for (const u of [...overSets, ...rebased]) server = u.changes.apply(server);
    const clientIDs = new Set(updates.map((u) => u.clientID));
    let state = EditorState.create({ doc, extensions: [collab({ clientID: [...clientIDs][0] ?? "me" })] });
    for (const u of ownSets) state = state.update({ changes: u.changes }).state;
    state = receiveUpdates(state, [...overSets, ...rebased]).state;
    answer = {
      rebased: rebased.map((u) => ({ changes: u.changes.toJSON(), clientID: u.clientID })),
      server: server.toString(),
      client: state.doc.toString(),
      unsent: sendableUpdates(state).length,
      version: getSyncedVersion(state),
    };
  } catch (error) {
    answer = { error: String(error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
