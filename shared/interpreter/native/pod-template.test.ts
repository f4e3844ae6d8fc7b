import { describe } from "node:test";
import { runCases } from "./native.fixtures.ts";
import { podTemplateCases } from "./pod-template.fixtures.ts";

describe("pod template requirements and dependencies", () => runCases(podTemplateCases));
