/**
 * The shape of a multi-step input and the walk through it: which steps are asked, how they are
 * numbered, where Back goes. Pure of `vscode` at run time (flow.ts shows the widgets), so the
 * walk is unit-tested with steps that answer by themselves.
 */
import type * as vscode from 'vscode';

/** What a step's widget gives back: a value, Back (to the previous step), or undefined (cancelled). */
export const BACK: unique symbol = Symbol('back');
export type Answer<T> = T | typeof BACK | undefined;

/** A message under an input: a problem blocks Enter, a note (the cron in words) does not. */
export type Check = string | { note: string } | null;

export interface PickItem<T> extends vscode.QuickPickItem {
  value: T;
}

/** The widgets a step can show; each is placed, titled and numbered by the flow. */
export interface StepInput {
  /** A pick from fixed items; `active` is the item to start on (the earlier answer). */
  pick<T>(options: { placeholder: string; items: PickItem<T>[]; active?: T }): Promise<Answer<T>>;
  /**
   * A pick of known entries (queues, recent commands) that also takes what is typed: the typed
   * text shows as the first item, or as the problem with it when `check` refuses it.
   */
  pickOrType(options: { placeholder: string; items: { label: string; description?: string }[]; value?: string; typedLabel: (typed: string) => string; check: (typed: string) => string | null }): Promise<Answer<string>>;
  /** A text input; `check` runs on every keystroke. */
  text(options: { prompt: string; placeholder?: string; value?: string; check: (text: string) => Check }): Promise<Answer<string>>;
}

/** Where a step sends the flow: on, back, or out. */
export type StepOutcome = 'next' | 'back' | 'cancel';

/** One step: it asks, stores its answer in the flow's state, and says where to go. */
export interface Step<S> {
  /** Whether the step is asked, given the answers so far. Default: always. */
  applies?: (state: S) => boolean;
  /** Shows the step's widget and stores the answer. */
  run(input: StepInput, state: S): Promise<StepOutcome>;
}

/** Turns a widget's answer into the step's outcome, storing a value with `store`. */
export function settle<T>(answer: Answer<T>, store: (value: T) => void): StepOutcome {
  if (answer === BACK) return 'back';
  if (answer === undefined) return 'cancel';
  store(answer);
  return 'next';
}

function asked<S>(step: Step<S> | undefined, state: S): boolean {
  return step !== undefined && (step.applies?.(state) ?? true);
}

/**
 * Walks `steps` from index `from`, asking each that applies through `ask` with its position
 * (1-based) among the steps that apply now and their number — which changes as answers come
 * (an http job has more steps than a shell one). Back goes to the nearest earlier step that
 * applies, and from the first stays there. True when the last step was answered.
 */
export async function walkSteps<S>(steps: readonly Step<S>[], state: S, from: number, ask: (step: Step<S>, position: number, total: number) => Promise<StepOutcome>): Promise<boolean> {
  let index = from;
  while (index < steps.length) {
    const step = steps[index];
    if (step === undefined || !asked(step, state)) {
      index += 1;
      continue;
    }
    const applying = steps.filter((s) => asked(s, state));
    const outcome = await ask(step, applying.indexOf(step) + 1, applying.length);
    if (outcome === 'cancel') return false;
    if (outcome === 'next') {
      index += 1;
      continue;
    }
    let previous = index - 1;
    while (previous >= 0 && !asked(steps[previous], state)) previous -= 1;
    index = Math.max(0, previous);
  }
  return true;
}
