import { describe } from "node:test";
import { appsCases } from "./apps.fixtures.ts";
import { runCases } from "./native.fixtures.ts";

describe("native interpreters: apps/v1", () => runCases(appsCases));
