/**
 * The control plane's journal, chaos, scenario and report answers as data (docs/control-plane.md,
 * docs/chaos.md): the shapes of what those routes answer, for the control-plane OpenAPI
 * document, and the report's query. The request bodies and the other answers are in
 * contract/control/control-schemas.ts.
 */
import { z } from '@hono/zod-openapi';
import { REQUIRED_MESSAGE } from '../api/messages.js';

export const ChaosEvidence = z
  .object({
    seed: z.int(),
    call: z.int().min(1).optional().openapi({ description: "A partnership call's position n." }),
    token_call: z
      .int()
      .min(1)
      .optional()
      .openapi({ description: "A token call's position n, in the token calls' own sequence." }),
    scenario: z.string(),
  })
  .openapi('ChaosEvidence');
/** `request_body_truncated` / `response_body_truncated` of a journal entry. */
const BodyTruncated = z
  .object({
    original_bytes: z.int().openapi({
      description:
        'The length in bytes (UTF-8) of the whole body as it would be shown (redacted, JSON compact).',
      example: 204_900,
    }),
  })
  .nullable()
  .openapi({
    description:
      'null when the body is shown whole; else it was cut at SANDBOX_JOURNAL_BODY_BYTES (after redaction) and this is how long it was.',
  });

export const JournalEntry = z
  .object({
    id: z.int(),
    time: z.string().openapi({ description: 'The sandbox clock (global) when the call was answered.' }),
    partner_time: z.string().nullable().openapi({
      description:
        "The caller's partner clock (global clock plus its own offset) when the call was answered; null when no partner was authenticated.",
    }),
    method: z.string(),
    path: z.string(),
    query: z.record(z.string(), z.string()),
    request_headers: z.record(z.string(), z.string()),
    request_body: z.string().nullable().openapi({
      description:
        'Secrets redacted (JSON compact), then cut at SANDBOX_JOURNAL_BODY_BYTES (never inside a character): see request_body_truncated.',
    }),
    request_body_truncated: BodyTruncated,
    status: z.int(),
    response_body: z.string().nullable().openapi({
      description: 'Redacted, then cut as request_body is: see response_body_truncated.',
    }),
    response_body_truncated: BodyTruncated,
    response_headers: z.record(z.string(), z.string()).openapi({
      description:
        'The headers of the answer as sent (lower-case names: Retry-After, X-Sandbox-Scenario-Applied, X-Sandbox-Chaos, X-Sandbox-Warning, ...); {} for a reset connection, which has no answer.',
    }),
    request_id: z.string(),
    trace_id: z.string().nullable().openapi({
      description:
        "The trace-id of the W3C traceparent the caller sent (32 lower-case hex digits): a failing test's trace leads to its calls here. null when it sent none, or one that breaks W3C Trace Context (never an error to the call).",
      example: '4bf92f3577b34da6a3ce929d0e0e4736',
    }),
    span_id: z.string().nullable().openapi({
      description:
        "The parent-id of that traceparent: the caller's span that made the call (16 lower-case hex digits); null as trace_id.",
      example: '00f067aa0ba902b7',
    }),
    tracestate: z.string().nullable().openapi({
      description: 'The tracestate header as sent, kept with a valid traceparent only; null otherwise.',
    }),
    parent_account_id: z.string().nullable(),
    account_id: z.string().nullable(),
    scenarios_applied: z.array(z.string()),
    chaos: ChaosEvidence.nullable().openapi({
      description:
        "The chaos failure this call met (docs/chaos.md): the profile seed, the call position n in its partner's sequence (call, or token_call for a token call: those have a sequence of their own), and the scenario drawn (a reset connection included); null for none.",
    }),
    warnings: z.array(z.string()),
    duration_ms: z.number(),
  })
  .openapi('JournalEntry');
export const ChaosProfileView = z
  .object({
    parent_account_id: z.string().nullable().openapi({ description: 'null: every partner.' }),
    rate: z.number(),
    seed: z.int(),
    scenarios: z.array(z.string()),
    set_at: z.string(),
    from_call: z.int().min(1).openapi({
      description:
        "The position of each partner's first partnership call under this profile (PUT's from_call).",
    }),
    calls_seen: z.int().openapi({
      description: 'The positions reached, partnership and token calls, summed over partners.',
    }),
    calls_failed: z.int(),
    failed_by_scenario: z.record(z.string(), z.int()),
    positions: z.record(z.string(), z.int()).openapi({
      description:
        "Each partner's call position n: the position of its last partnership call (each partner has its own sequence).",
    }),
    token_positions: z.record(z.string(), z.int()).openapi({
      description: "Each partner's token call position: its token calls are a sequence of their own.",
    }),
  })
  .openapi('ChaosProfile');
export const ChaosAnswer = z.object({ profile: ChaosProfileView });
export const ChaosList = z.object({ profiles: z.array(ChaosProfileView) }).openapi('ChaosProfiles');
export const JournalAnswer = z.object({ requests: z.array(JournalEntry), max: z.int() }).openapi('Journal');
export const Armed = z
  .object({
    id: z.int(),
    scenario: z.string(),
    effects: z.array(z.object({ name: z.string(), value: z.number().optional() })),
    parent_account_id: z.string().optional(),
    account_id: z.string().optional(),
    remaining: z.int().optional(),
    armed_at: z.string(),
  })
  .openapi('ArmedScenario');
export const ArmAnswer = z.object({ armed: Armed });
export const DisarmAnswer = z.object({ armed: z.array(Armed) });
export const Catalogue = z
  .object({
    built_ins: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        value: z.string(),
        applies_to: z.array(z.string()),
      }),
    ),
    presets: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        effects: z.array(z.object({ name: z.string(), value: z.number().optional() })),
        source: z.string(),
      }),
    ),
    armed: z.array(Armed),
  })
  .openapi('ScenarioCatalogue');
/** GET /__sandbox/report's query: other parameters are ignored. */
export const ReportQuery = z.object({
  parent_account_id: z
    .string({ error: REQUIRED_MESSAGE })
    .min(1, REQUIRED_MESSAGE)
    .openapi({ description: 'The partner to report on.', example: 'pa_demo_platform' }),
  format: z
    .enum(['json', 'junit'], { error: 'must be "json" or "junit"' })
    .optional()
    .openapi({ description: 'json (default) or junit.', example: 'json' }),
});

export const ReportAnswer = z
  .object({
    parent_account_id: z.string(),
    cell: z.string().optional().openapi({
      description: 'The cell that answered (SANDBOX_CELL, docs/hosting.md); absent when none is set.',
    }),
    generated_at: z.string(),
    requests_analyzed: z.int(),
    summary: z.object({ passed: z.int(), failed: z.int(), not_exercised: z.int() }),
    checks: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        outcome: z.enum(['passed', 'failed', 'not_exercised']),
        evidence: z.array(z.string()),
        next: z.string().nullable().openapi({
          description:
            'What to do next: for a check not exercised, the drill that exercises it; for a failed one, what the client must do instead; null once passed.',
        }),
      }),
    ),
    resilience: z
      .array(
        z.object({
          scenario: z.string(),
          injected: z.int(),
          recovered: z.int(),
          recovered_by_http_client: z.int().openapi({
            description:
              'Of those injected, how many the HTTP library resent on its own within 100 ms of a connection reset: the call went through, but the caller never saw the failure.',
          }),
          outcome: z.enum(['passed', 'failed', 'recovered_by_http_client']).openapi({
            description:
              'passed: the caller recovered from every one; recovered_by_http_client: none failed, but the HTTP client recovered from some unseen ("recovered by the HTTP client, not seen by the caller"); failed: one was not recovered.',
          }),
          evidence: z.array(z.string()),
        }),
      )
      .openapi({
        description:
          'Per scenario chaos injected (docs/chaos.md): how many times, and how many the client recovered from (its next call of the same method and path succeeded, after Retry-After where one was sent); evidence with request_ids.',
      }),
  })
  .openapi('IntegrationReport');
