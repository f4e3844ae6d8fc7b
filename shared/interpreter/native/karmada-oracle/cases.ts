// Prints every native interpreter sample case as JSON, the oracle's input (see README.md).
import { allCases, caseTitle } from "../cases.fixtures.ts";

const out = allCases.map((c) => ({
  name: caseTitle(c),
  op: c.op,
  object: c.object,
  observed: c.observed,
  replicas: c.replicas,
  items: c.items,
  targets: c.targets,
  uid: c.uid,
}));
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
