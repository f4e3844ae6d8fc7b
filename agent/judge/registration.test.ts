import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AppliedRecord } from "./applied-record.ts";
import { earlierRegistrationKeys, stampedRecords } from "./registration.ts";

const rec = (key: string, registration?: string): AppliedRecord => ({ key, hash: "h", resources: [], ...(registration !== undefined ? { registration } : {}) });
const records = [rec("a", "uid-1"), rec("b", "uid-2"), rec("c")];

describe("earlierRegistrationKeys", () => {
  it("names the Works of another registration than now, never an unstamped one", () => assert.deepEqual(earlierRegistrationKeys(records, "uid-2"), ["a"]));
  it("names none when the certificate names no uid", () => assert.deepEqual(earlierRegistrationKeys(records, undefined), []));
});

describe("stampedRecords", () => {
  it("stamps only the records that name no registration", () => assert.deepEqual(stampedRecords(records, "uid-2"), [rec("c", "uid-2")]));
  it("stamps nothing when the certificate names no uid", () => assert.deepEqual(stampedRecords(records, undefined), []));
});
