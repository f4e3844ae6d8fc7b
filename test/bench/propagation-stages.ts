// Where bench:propagate's time goes, template by template (issue 25), from the objects' own
// creationTimestamps (whole seconds, so each figure is ±1 s): the template's creation → its
// ResourceBinding's → the last member's copy. Pure.
import { quantile } from "./fleet-figures.ts";

export interface StageTimes {
  /** Per template name, its creationTimestamp (ms). */
  templates: Map<string, number>;
  /** Per template name, its binding's creationTimestamp (ms). */
  bindings: Map<string, number>;
  /** Per template name, the last member copy's creationTimestamp (ms); missing when a member has none. */
  members: Map<string, number>;
}

export interface StageFigures {
  /** Seconds from template to binding, from binding to the last member copy: p50, p90, max. */
  toBinding: [number, number, number];
  toMembers: [number, number, number];
  /** Seconds from the first template's creation until the last template, the last binding, the last member copy were created. */
  lastTemplate: number;
  lastBinding: number;
  lastMember: number;
}

const figures = (v: number[]): [number, number, number] => [quantile(v, 0.5), quantile(v, 0.9), quantile(v, 1)];

export function stageFigures(t: StageTimes): StageFigures {
  const toBinding: number[] = [];
  const toMembers: number[] = [];
  for (const [name, created] of t.templates) {
    const b = t.bindings.get(name);
    const m = t.members.get(name);
    if (b !== undefined) toBinding.push((b - created) / 1000);
    if (b !== undefined && m !== undefined) toMembers.push((m - b) / 1000);
  }
  const first = Math.min(...t.templates.values());
  const last = (m: Map<string, number>) => (Math.max(...m.values()) - first) / 1000;
  return { toBinding: figures(toBinding), toMembers: figures(toMembers), lastTemplate: last(t.templates), lastBinding: last(t.bindings), lastMember: last(t.members) };
}

export function stagesLine(f: StageFigures): string {
  const s = ([p50, p90, max]: [number, number, number]) => `p50 ${p50} s, p90 ${p90} s, max ${max} s`;
  return `template → binding ${s(f.toBinding)}; binding → last member copy ${s(f.toMembers)}; after the first template: last template ${f.lastTemplate} s, last binding ${f.lastBinding} s, last member copy ${f.lastMember} s (creationTimestamps, ±1 s)`;
}
