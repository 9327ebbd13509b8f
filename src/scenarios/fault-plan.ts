/**
 * A call's fault plan: the scenarios it meets, from the header's effects, then those armed for
 * its account, then for its parent, then for every partner, then what its partner's chaos
 * profile drew for it (drawn once, when authentication knows the partner). Each scenario has
 * one hook point (its record in catalogue.ts): the pipeline's stages take theirs
 * (token-expired, auth-propagation's one-call 401, the injected faults), and the services
 * receive theirs as typed drills (`ServiceFaults`), resolved once before the handler runs.
 * An effect counts as applied (an armed entry's count used, a chaos failure counted) only
 * when a call reaches its hook on an endpoint the scenario applies to: a call answered
 * earlier uses up nothing.
 */
import type { Armed, ArmedRegistry } from './armed.js';
import { builtIn, type Endpoint, type ScenarioName } from './catalogue.js';
import type { ChaosCandidate, ChaosDraw, ChaosRegistry } from './chaos.js';
import type { Effect } from './presets.js';

/**
 * A scenario a service may apply, where its rule allows (a real write, a new account, a
 * variant to fail): `use()` applies it and gives its value.
 */
export interface Drill<V> {
  use(): V;
}

/** The service-hooked scenarios this call meets (absent: none asks for it). */
export interface ServiceFaults {
  /** unseeded-mappings: the parent's mapping reads as empty. */
  unseededMappings?: Drill<void>;
  /** auth-propagation on register: the new account's propagation window, in seconds. */
  authPropagation?: Drill<number | undefined>;
  /** stale-content-hash: another writer replaces the list first. */
  staleContentHash?: Drill<void>;
  /** status-partial-failure: how many variants fail (undefined: the default share). */
  statusPartialFailure?: Drill<number | undefined>;
}

/** The service-hooked scenarios by the name ServiceFaults gives them. */
export const SERVICE_FAULTS = {
  unseededMappings: 'unseeded-mappings',
  authPropagation: 'auth-propagation',
  staleContentHash: 'stale-content-hash',
  statusPartialFailure: 'status-partial-failure',
} as const satisfies Record<keyof ServiceFaults, ScenarioName>;

const SERVICE_FAULT_ENTRIES = Object.entries(SERVICE_FAULTS) as [keyof ServiceFaults, ScenarioName][];

/** What a call meets when nothing is armed, sent or drawn for it: no drill (shared, frozen). */
const NO_SERVICE_FAULTS: ServiceFaults = Object.freeze({});

export class FaultPlan {
  endpoint: Endpoint | undefined;
  parentId: string | undefined;
  accountId: string | undefined;
  readonly applied: string[] = [];
  /** The chaos failure that applied to this request (its evidence), if one did. */
  chaos: ChaosDraw | undefined;
  readonly #header: Effect[];
  readonly #armed: ArmedRegistry;
  readonly #chaos: ChaosRegistry | undefined;
  /** The armed entries this request counted (made at the first). */
  #consumed: Set<Armed> | undefined;
  /** What chaos drew for this call; drawn once, when the partner is known. */
  #drawn: ChaosDraw | undefined;
  #counted = false;

  constructor(header: Effect[], armed: ArmedRegistry, chaos?: ChaosRegistry) {
    this.#header = header;
    this.#armed = armed;
    this.#chaos = chaos;
  }

  /** The same header's effects, nothing taken yet (a request that starts over); its draw stays. */
  fresh(): FaultPlan {
    const next = new FaultPlan(this.#header, this.#armed, this.#chaos);
    next.endpoint = this.endpoint;
    next.#drawn = this.#drawn;
    next.#counted = this.#counted;
    return next;
  }

  /**
   * The partner is known (parentId, and accountId where the path names one): counts the call
   * in its chaos sequence and draws its failure, unless a header or armed scenario meets it.
   * Once per request, even when it starts over.
   */
  drawChaos(dryRun: boolean, method: string, path: string): void {
    if (this.#counted || !this.#chaos || !this.parentId || !this.endpoint) return;
    this.#counted = true;
    if (!this.#chaos.of(this.parentId)) return; // no profile for this partner: nothing to count
    this.#drawn = this.#chaos.draw(
      this.parentId,
      new CallUnderChaos(this, this.endpoint, dryRun, method, path),
    );
  }

  /** Whether chaos may fail this call: no header effect and no armed scenario meets it. */
  leftToChaos(): boolean {
    return this.#header.length === 0 && !this.#armed.meets(this.endpoint!, this.accountId, this.parentId);
  }

  /**
   * The service-hooked scenarios this call meets now, as drills its services apply where
   * their rules allow. Resolved in the handler's synchronous stretch, so nothing changes
   * between a drill found here and its use.
   */
  serviceFaults(): ServiceFaults {
    if (this.#quiet()) return NO_SERVICE_FAULTS;
    const out: ServiceFaults = {};
    for (const [key, name] of SERVICE_FAULT_ENTRIES) {
      if (this.#resolve(name)) out[key] = { use: () => this.take(name)?.value } as Drill<never>;
    }
    return out;
  }

  /**
   * Whether this call can meet no scenario now: no header effect, no armed entry anywhere (nor
   * one it already counted), no chaos failure drawn. Asked before each lookup, so an entry
   * armed while the call awaited still counts.
   */
  #quiet(): boolean {
    return (
      this.#header.length === 0 &&
      this.#consumed === undefined &&
      this.#drawn === undefined &&
      this.#armed.empty
    );
  }

  /** The effect this call would meet, without taking it (nothing counted or used). */
  #resolve(name: ScenarioName): Effect | undefined {
    const def = builtIn(name);
    if (!def || !this.endpoint || !def.appliesTo.includes(this.endpoint)) return undefined;
    return (
      this.#header.find((e) => e.name === name) ??
      this.#fromConsumed(name) ??
      this.#armed.find(name, this.accountId, this.parentId)?.effect ??
      this.#drawn?.effects.find((e) => e.name === name)
    );
  }

  /** Takes the effect at its hook, if one is requested for this call and applies to its endpoint. */
  take(name: ScenarioName): Effect | undefined {
    if (this.#quiet()) return undefined;
    const def = builtIn(name);
    if (!def || !this.endpoint || !def.appliesTo.includes(this.endpoint)) return undefined;
    let effect = this.#header.find((e) => e.name === name) ?? this.#fromConsumed(name);
    if (!effect) {
      const found = this.#armed.find(name, this.accountId, this.parentId);
      if (found) {
        effect = found.effect;
        this.#consumed ??= new Set();
        if (!this.#consumed.has(found.armed)) {
          this.#consumed.add(found.armed);
          this.#armed.consume(found.armed);
        }
      }
    }
    if (!effect && this.#drawn) {
      effect = this.#drawn.effects.find((e) => e.name === name);
      if (effect) {
        this.chaos = this.#drawn;
        this.#drawn.commit();
      }
    }
    if (effect) {
      const label = effect.value === undefined ? name : `${name}=${effect.value}`;
      if (!this.applied.includes(label)) this.applied.push(label);
    }
    return effect;
  }

  /**
   * An armed entry this request already counted applies all its effects to it (a preset's
   * latency and its 503 on the same request), without counting the request again.
   */
  #fromConsumed(name: ScenarioName): Effect | undefined {
    if (this.#consumed === undefined) return undefined;
    for (const armed of this.#consumed) {
      const effect = armed.effects.find((e) => e.name === name);
      if (effect) return effect;
    }
    return undefined;
  }
}

/**
 * A call as its partner's chaos profile sees it: its `METHOD path` is written, and the armed
 * scenarios asked, only when the profile needs them (rarely at a low rate, never at rate 0).
 */
class CallUnderChaos implements ChaosCandidate {
  readonly #plan: FaultPlan;
  readonly endpoint: Endpoint;
  readonly dryRun: boolean;
  readonly #method: string;
  readonly #path: string;

  constructor(plan: FaultPlan, endpoint: Endpoint, dryRun: boolean, method: string, path: string) {
    this.#plan = plan;
    this.endpoint = endpoint;
    this.dryRun = dryRun;
    this.#method = method;
    this.#path = path;
  }

  operation(): string {
    return `${this.#method} ${this.#path}`;
  }

  eligible(): boolean {
    return this.#plan.leftToChaos();
  }
}
