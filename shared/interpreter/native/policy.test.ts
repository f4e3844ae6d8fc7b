import { describe } from "node:test";
import { runCases } from "./native.fixtures.ts";
import { policyCases } from "./policy.fixtures.ts";

describe("native interpreters: Ingress, PodDisruptionBudget, HorizontalPodAutoscaler", () => runCases(policyCases));
