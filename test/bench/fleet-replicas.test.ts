import assert from "node:assert/strict";
import { it } from "node:test";
import { sumDefined } from "./fleet-replicas.ts";

it("sumDefined: the replicas' values that are there, summed; undefined when none is", () => {
  assert.equal(sumDefined([3, undefined, 4]), 7);
  assert.equal(sumDefined([undefined, Number.NaN]), undefined);
  assert.equal(sumDefined([]), undefined);
  assert.equal(sumDefined([0]), 0);
});
