"""Teaching workshops (issue 8): exercise sets, rooms with a join code, live progress for the teacher."""
