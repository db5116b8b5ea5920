"""ValidatingAdmissionPolicy semantics on top of evaluator.admission: compile a policy, evaluate it for one
(binding, param) as the API server's validator does. The dispatcher is evaluator.admission.dispatch; the
public entry point is evaluator.simulate. The result schema is in SCHEMA.md."""
