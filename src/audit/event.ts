// What the audit trail records: one event per call, approval decision, pin approval, admin action and
// refused authentication. Callers record events through `app.audit.record` (src/http/audit.ts); the
// trail adds the time and a sequence number, digests the arguments and writes one JSON line each.

/** Fields every event may carry: who, and which request and trace it belongs to. */
export interface AuditCommon {
  /** The caller's principal (an API key's name, a user); absent on an open gateway or when unknown. */
  principal?: string
  /** The HTTP request id (X-Request-Id), when the event came from one. */
  requestId?: string
  /** The W3C trace id, when tracing is on. */
  traceId?: string
  /** Anything more a feature records (never argument values: they go through `args`). */
  detail?: Record<string, unknown>
}

/** How a call came in. `inner`: a call another feature makes on a caller's behalf. */
export type CallVia = 'rest' | 'batch' | 'mcp' | 'async' | 'inner'

export interface CallAuditEvent extends AuditCommon {
  type: 'call'
  via: CallVia
  tool: string
  callId?: string
  sessionId?: string
  /** The envelope's status (ok, error, blocked, timeout, ...). */
  status: string
  durationMs: number
  /** The arguments as the caller sent them: digested always, written (redacted) only with audit.arguments. */
  args?: unknown
  /** Size of the result's content, in UTF-8 bytes. */
  resultBytes?: number
}

export interface ApprovalAuditEvent extends AuditCommon {
  type: 'approval'
  tool: string
  callId?: string
  /** approved, denied, expired, ... */
  decision: string
  /** Who decided (a principal), when not the caller. */
  by?: string
}

export interface PinAuditEvent extends AuditCommon {
  type: 'pin'
  tool: string
  /** approved, revoked, refused, ... */
  decision: string
  /** The digest of the definition pinned. */
  digest?: string
  by?: string
}

export interface AdminAuditEvent extends AuditCommon {
  type: 'admin'
  /** reload, audit-read, ... */
  action: string
  status?: string
}

export interface AuthRefusedAuditEvent extends AuditCommon {
  type: 'auth_refused'
  /** missing, wrong-key, invalid-token, insufficient-scope, rate-limited, limited-key */
  reason: string
  /** The HTTP status answered. */
  status: number
  ip?: string
  method?: string
  path?: string
}

export type AuditEvent = CallAuditEvent | ApprovalAuditEvent | PinAuditEvent | AdminAuditEvent | AuthRefusedAuditEvent
export type AuditEventType = AuditEvent['type']

/** What records events: `app.audit`. Recording never throws and never waits: lines are written in batches. */
export interface AuditRecorder {
  /** Whether anything is recorded (false: `record` does nothing; a caller may skip building the event). */
  readonly enabled: boolean
  record: (event: AuditEvent) => void
}
