// An Explanation as plain text: what flotillactl explain prints and the dashboard shows. Pure.
import type { Explanation } from "./explanation.ts";

/** The explanation as lines: the template, the general sentences, then one section per cluster. */
export function explanationText(e: Explanation): string {
  const t = e.template;
  const lines = [`${t.kind} ${t.namespace ? `${t.namespace}/` : ""}${t.name} (${t.apiVersion})`, ...e.sentences.map((s) => `  ${s}`)];
  if (e.binding !== undefined) lines.push(`  Binding: ${e.binding.kind} ${e.binding.namespace ? `${e.binding.namespace}/` : ""}${e.binding.name}.`);
  for (const c of e.clusters) {
    lines.push("");
    for (const [i, s] of c.sentences.entries()) lines.push(i === 0 ? s : `  ${s}`);
  }
  return `${lines.join("\n")}\n`;
}
