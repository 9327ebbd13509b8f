/**
 * A bundle's completed idempotency keys checked: each stored answer is replayed byte for byte
 * (`Idempotent-Replayed: true`), so it must be an answer its operation could have given.
 */
import type { z } from 'zod';
import type { FieldIssue } from '../../contract/api/errors.js';
import { issuesToFields } from '../../contract/api/issues.js';
import { operations } from '../../contract/api/operations.js';
import type { BundleData } from '../../contract/control/bundle.js';
import { canonical } from '../../domain/canonical-json.js';
import { routePattern } from '../../domain/route-pattern.js';

/**
 * The operations a stored answer can replay on: the routes whose 200 documents
 * Idempotent-Replayed, each with its path as a pattern and its documented 200 body.
 */
const replayable = Object.values(operations)
  .map((o) => o.route)
  .filter((r) => 'Idempotent-Replayed' in r.responses[200].headers)
  .map((r) => ({
    method: r.method.toUpperCase(),
    template: r.path,
    pattern: routePattern(r.path),
    statuses: Object.keys(r.responses)
      .map(Number)
      .filter((n) => n >= 200 && n < 300),
    schema: r.responses[200].content['application/json'].schema as z.ZodType,
  }));

type StoredKey = BundleData['idempotency_keys'][number];
type Replayable = (typeof replayable)[number];

/** What a stored key's operation names: its route, account and layout (when it has one). */
interface Target {
  route: Replayable;
  method: string;
  account: string;
  layout: string | undefined;
}

/**
 * A stored answer must be an answer its operation could have given: an operation that takes a
 * key, on an account (and layout) of this bundle; a documented 2xx; JSON that is exactly the
 * documented 200 body (no field more or less), its envelope's status the stored one, dry_run
 * present exactly when the key was a dry run's, and its data about the operation's account.
 */
export function storedAnswerProblems(
  k: StoredKey,
  at: string,
  layoutsOf: ReadonlyMap<string, ReadonlySet<string>>,
): FieldIssue[] {
  const target = targetOf(k, at, layoutsOf);
  if (!('route' in target)) return target;
  return answerProblems(k, at, target);
}

/** The key's operation as a target on this bundle, or why it is none. */
function targetOf(
  k: StoredKey,
  at: string,
  layoutsOf: ReadonlyMap<string, ReadonlySet<string>>,
): Target | FieldIssue[] {
  const space = k.operation.indexOf(' ');
  const method = k.operation.slice(0, space);
  const path = k.operation.slice(space + 1);
  const route = space > 0 ? replayable.find((r) => r.method === method && r.pattern.test(path)) : undefined;
  if (!route) {
    const known = replayable.map((r) => `${r.method} ${r.template}`).join(', ');
    return [
      { field: `${at}.operation`, message: `must be an operation that takes an Idempotency-Key (${known})` },
    ];
  }
  const params = route.pattern.exec(path)!.groups ?? {};
  const account = params.account_id!;
  const layouts = layoutsOf.get(account);
  if (!layouts)
    return [{ field: `${at}.operation`, message: `names account ${account}, not an account of this bundle` }];
  if (params.layout_id !== undefined && !layouts.has(params.layout_id))
    return [
      {
        field: `${at}.operation`,
        message: `names layout ${params.layout_id}, not a layout of account ${account}`,
      },
    ];
  return { route, method, account, layout: params.layout_id };
}

/** The stored status and body checked against what the target's operation answers. */
function answerProblems(k: StoredKey, at: string, { route, method, account, layout }: Target): FieldIssue[] {
  if (!route.statuses.includes(k.status))
    return [
      {
        field: `${at}.status`,
        message: `must be ${route.statuses.join(' or ')}, what ${method} ${route.template} answers`,
      },
    ];

  let body: unknown;
  try {
    body = JSON.parse(k.body);
  } catch {
    return [{ field: `${at}.body`, message: 'must be the JSON answer that is replayed (it is not JSON)' }];
  }
  const answer = route.schema.safeParse(body);
  if (!answer.success) {
    return issuesToFields(answer.error.issues, '', 'bundle').map((f) => ({
      field: f.field === '(body)' ? `${at}.body` : `${at}.body.${f.field}`,
      message: `${f.message} (not an answer of ${method} ${route.template})`,
    }));
  }
  if (JSON.stringify(canonical(answer.data)) !== JSON.stringify(canonical(body)))
    return [
      { field: `${at}.body`, message: `holds fields that an answer of ${method} ${route.template} does not` },
    ];
  const envelope = body as { status: number; dry_run?: true; data: Record<string, unknown> };
  const out: FieldIssue[] = [];
  if (envelope.status !== k.status)
    out.push({ field: `${at}.body.status`, message: `must be ${k.status}, the stored status` });
  if ('dry_run' in envelope !== k.dry_run)
    out.push({
      field: `${at}.body.dry_run`,
      message: k.dry_run
        ? "must be true: the key is a dry run's"
        : "must be absent: the key is not a dry run's",
    });
  if ('account_id' in envelope.data && envelope.data.account_id !== account)
    out.push({
      field: `${at}.body.data.account_id`,
      message: `must be ${account}, the account of the operation`,
    });
  if (layout !== undefined && envelope.data.layout_id !== layout)
    out.push({
      field: `${at}.body.data.layout_id`,
      message: `must be ${layout}, the layout of the operation`,
    });
  return out;
}
