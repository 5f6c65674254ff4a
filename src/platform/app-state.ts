/**
 * Per-app state, the one way a module keeps state beyond a call or hands something across
 * modules: a slot, whose value lives in the app's `AppState` (held by `ServiceDeps.state`, and by
 * a read worker's `ReadContext.state`). Each app (each test app) has its own, so two apps in one
 * process never share a writer, a cache or a provided function. Module-level mutable state is
 * refused by test/platform/structure.test.ts.
 *
 * A slot is filled one of two ways:
 * - created on first use from what its holder offers (`appSlot` in deps.ts: from the app's
 *   dependencies; `stateSlot`: from nothing, so a read worker can hold one too);
 * - provided at registration (`providedSlot` + `provide`): what a lower module needs and a higher
 *   one supplies, so imports keep pointing one way (dependency inversion).
 */

/** A piece of per-app state: created from `D` on first use, unless provided first. */
export interface AppSlot<T, D> {
  readonly name: string;
  readonly create: (holder: D) => T;
}

/** A slot a higher module fills when it registers; reading it before then is a wiring error. */
export interface ProvidedSlot<T> extends AppSlot<T, StateHolder> {
  readonly provider: string;
}

/** Anything that carries an app's state: `ServiceDeps`, a read task's `ReadContext`. */
export interface StateHolder {
  state: AppState;
}

/** The values of an app's slots. */
export class AppState {
  private readonly values = new Map<AppSlot<unknown, never>, unknown>();

  get<T, D>(slot: AppSlot<T, D>, holder: D): T {
    if (!this.values.has(slot)) this.values.set(slot, slot.create(holder));
    return this.values.get(slot) as T;
  }

  provide<T>(slot: ProvidedSlot<T>, value: T): void {
    if (this.values.has(slot)) throw new Error(`${slot.name} is provided twice`);
    this.values.set(slot, value);
  }
}

/** Per-app state that needs nothing from the app to be made (a cache); any holder can read it. */
export const stateSlot = <T>(name: string, create: () => T): AppSlot<T, StateHolder> => ({ name, create });

/**
 * What a lower module declares it needs; `provider` names the module that supplies it (for the
 * error when it has not).
 */
export const providedSlot = <T>(name: string, provider: string): ProvidedSlot<T> => ({
  name,
  provider,
  create: () => {
    throw new Error(`no ${name}: the ${provider} module provides it when it registers`);
  },
});

/** This app's value of a slot. */
export const stateOf = <T, D extends StateHolder>(holder: D, slot: AppSlot<T, NoInfer<D>>): T =>
  holder.state.get(slot, holder);

/** Fills a provided slot for this app (a module's `register`, a read worker's `prepare`). */
export const provide = <T>(holder: StateHolder, slot: ProvidedSlot<T>, value: T): void =>
  holder.state.provide(slot, value);
