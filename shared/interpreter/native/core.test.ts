import { describe } from "node:test";
import { coreCases } from "./core.fixtures.ts";
import { runCases } from "./native.fixtures.ts";

describe("native interpreters: core/v1", () => runCases(coreCases));
