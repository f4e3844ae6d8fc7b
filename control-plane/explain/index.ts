// explain/ (issue 24): why a template is, or is not, where a user expects it. The Admin API's
// Explain call, flotillactl explain and the web dashboard all use `explain`.
export { explain, type ExplainRef } from "./explain.ts";
export type { ClusterExplanation, Explanation } from "./explanation.ts";
export { explanationText } from "./text.ts";
export { reasonSentence, REASON_SENTENCES } from "./reasons.ts";
