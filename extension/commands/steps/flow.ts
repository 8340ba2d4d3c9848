/**
 * A multi-step quick input, as in VS Code's own multi-step sample: each step shows `step n of m`
 * in the title, a Back button from the second step on, and checks its value as it is typed (the
 * problem shows under the input and Enter does nothing until it is fixed, so what was typed
 * stays). Back returns to the previous step with its answer filled in; Escape cancels the whole
 * flow. Steps that do not apply to the answers so far (the HTTP method for a shell job) are
 * skipped and not counted.
 */
import * as vscode from 'vscode';
import { BACK, walkSteps, type Answer, type Check, type PickItem, type Step, type StepInput } from './plan';

export { BACK, settle, type Answer, type Check, type PickItem, type Step, type StepInput } from './plan';

/**
 * Runs `steps` over `state` from `from` (an index into the steps, to reopen one after the daemon
 * refused the answers); true when the last step was answered, false when cancelled.
 */
export function runSteps<S>(title: string, steps: readonly Step<S>[], state: S, from = 0): Promise<boolean> {
  return walkSteps(steps, state, from, (step, position, total) => step.run(new Widgets(title, position, total), state));
}

class Widgets implements StepInput {
  constructor(
    private readonly title: string,
    private readonly step: number,
    private readonly totalSteps: number,
  ) {}

  private place(input: vscode.QuickInput & { buttons: readonly vscode.QuickInputButton[] }): void {
    // The words in the title rather than VS Code's own "1/4" counter (step, totalSteps): the
    // same fact once, readable by a screen reader and in a screenshot.
    input.title = this.totalSteps > 1 ? `${this.title} — step ${this.step} of ${this.totalSteps}` : this.title;
    input.ignoreFocusOut = true;
    input.buttons = this.step > 1 ? [vscode.QuickInputButtons.Back] : [];
  }

  pick<T>(options: { placeholder: string; items: PickItem<T>[]; active?: T }): Promise<Answer<T>> {
    const qp = vscode.window.createQuickPick<PickItem<T>>();
    this.place(qp);
    qp.placeholder = options.placeholder;
    qp.items = options.items;
    const active = options.items.find((i) => i.value === options.active);
    if (active) qp.activeItems = [active];
    return settleWidget<T>(qp, (resolve) => {
      const chosen = qp.selectedItems[0];
      if (chosen) resolve(chosen.value);
    });
  }

  pickOrType(options: { placeholder: string; items: { label: string; description?: string }[]; value?: string; typedLabel: (typed: string) => string; check: (typed: string) => string | null }): Promise<Answer<string>> {
    // `typed`: the item stands for what is typed (the new name, or the problem with it).
    type Item = PickItem<string> & { typed?: true };
    const qp = vscode.window.createQuickPick<Item>();
    this.place(qp);
    qp.placeholder = options.placeholder;
    const base: Item[] = options.items.map((i) => ({ ...i, value: i.label }));
    const update = (): void => {
      const typed = qp.value.trim();
      if (typed === '' || base.some((i) => i.value === typed)) {
        qp.items = base;
        return;
      }
      const problem = options.check(typed);
      // The problem takes the typed item's place, so it shows as the user types and Enter on it
      // keeps the pick open with the text as it is.
      const label = problem === null ? options.typedLabel(typed) : `$(error) ${problem}`;
      qp.items = [{ label, value: typed, alwaysShow: true, typed: true }, ...base];
    };
    if (options.value !== undefined) qp.value = options.value;
    update();
    qp.onDidChangeValue(update);
    return settleWidget<string>(qp, (resolve) => {
      const chosen = qp.selectedItems[0];
      if (chosen !== undefined && chosen.typed === undefined) {
        resolve(chosen.value);
        return;
      }
      // What is typed now, checked now: Enter can come before the items caught up with the
      // last keystroke, so the selected typed item may be a keystroke behind.
      const typed = qp.value.trim();
      if (typed === '' || options.check(typed) !== null) return;
      resolve(typed);
    });
  }

  text(options: { prompt: string; placeholder?: string; value?: string; check: (text: string) => Check }): Promise<Answer<string>> {
    const box = vscode.window.createInputBox();
    this.place(box);
    box.prompt = options.prompt;
    box.placeholder = options.placeholder;
    box.value = options.value ?? '';
    // An empty box shows its prompt, not a problem, until Enter is pressed on it: the user has
    // not typed anything wrong yet.
    const show = (onEnter: boolean): Check => {
      const check = options.check(box.value);
      const quiet = !onEnter && box.value === '' && typeof check === 'string';
      box.validationMessage = check === null || quiet ? undefined : typeof check === 'string' ? check : { message: check.note, severity: vscode.InputBoxValidationSeverity.Info };
      return check;
    };
    show(false);
    box.onDidChangeValue(() => show(false));
    return settleWidget<string>(box, (resolve) => {
      if (typeof show(true) !== 'string') resolve(box.value);
    });
  }
}

/**
 * Shows `input` and resolves with what `accept` resolves on Enter, BACK on the Back button, or
 * undefined when it is hidden (Escape, focus elsewhere with ignoreFocusOut off).
 */
function settleWidget<T>(input: vscode.QuickPick<PickItem<T>> | vscode.QuickPick<PickItem<string>> | vscode.InputBox, accept: (resolve: (value: T) => void) => void): Promise<Answer<T>> {
  return new Promise<Answer<T>>((resolve) => {
    let settled = false;
    const finish = (answer: Answer<T>): void => {
      if (settled) return;
      settled = true;
      resolve(answer);
      input.hide();
    };
    const disposables = [
      input.onDidAccept(() => accept((value) => finish(value))),
      input.onDidTriggerButton((button) => {
        if (button === vscode.QuickInputButtons.Back) finish(BACK);
      }),
      input.onDidHide(() => {
        finish(undefined);
        for (const d of disposables) d.dispose();
        input.dispose();
      }),
    ];
    input.show();
  });
}
