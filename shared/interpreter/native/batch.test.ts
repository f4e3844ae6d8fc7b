import { describe } from "node:test";
import { batchCases } from "./batch.fixtures.ts";
import { runCases } from "./native.fixtures.ts";

describe("native interpreters: batch/v1", () => runCases(batchCases));
