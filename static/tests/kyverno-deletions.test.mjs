// Unit test of the DeletingPolicy headline in a result card (node --test): the next run, the schedule and how
// many of the selected objects that run would delete.

import test from "node:test";
import assert from "node:assert/strict";
import { deletionHeadline } from "../src/kyverno-results.js";

test("a deleting policy's headline names its next run and what it would delete", () => {
  const entry = {
    policy: "cleanup", namespace: "", schedule: "0 1 * * *", nextRun: "2026-12-05T01:00:00Z", deletes: 1,
    objects: [{ result: "delete" }, { result: "keep" }],
  };
  assert.equal(deletionHeadline(entry), "cleanup: next run 2026-12-05T01:00:00Z (schedule 0 1 * * *) would delete 1 of 2 selected objects");
  assert.equal(deletionHeadline({ ...entry, namespace: "qa", objects: [{ result: "keep" }], deletes: 0 }),
    "qa/cleanup: next run 2026-12-05T01:00:00Z (schedule 0 1 * * *) would delete 0 of 1 selected object");
  assert.equal(deletionHeadline({ policy: "bad", error: "not a cron expression", nextRun: null }), "bad: cannot run");
});
