// Every error code the API answers with, its one HTTP status and what it means: the single source a DomainError
// takes its status from (src/shared/errors.ts), and the OpenAPI document lists its error responses from.
// A code the spec names keeps the spec's status (../shared/spec/*.md error tables, decisions.md); where the spec is
// silent, decisions.md part 1: input errors 422, state conflicts 409. Where the spec names one code with two
// statuses, one was chosen and the other route moved to it:
// - `validation_error` is 422 everywhere (decisions.md part 1, commerce.md part 7), also on
//   POST /shipping-tax/carts/{id}/calculate, whose row in commerce.md part 4 said 400.
// - `invalid_order_state` is 422 (commerce.md part 7), also for fulfillments (decisions.md part 5 said 409).
// - `environment_not_found` is 404 (platform.md part 7 "Unknown environment id"), also when an installation's
//   pinned environment is gone at api-key mint (the same table's 409 row).
// - `insufficient_scopes` is 403 (commerce.md part 7: the credential or grant lacks a scope), also for event
//   subscriptions without their read scope (platform.md part 7 and decisions.md part 4 said 400).
// A DomainError takes a code of this table only (its constructor's type), and its status from here: no call site
// states a status (test/error-catalogue.test.ts also checks the hand-written error bodies).

type ErrorEntry = { readonly status: number; readonly meaning: string };

export const ERROR_CATALOGUE = {
  // 400: the request cannot be read or breaks a rule the spec gives 400
  bad_request: { status: 400, meaning: "The request could not be read (a malformed header, query or framing)." },
  invalid_json: { status: 400, meaning: "The body is not valid JSON (or not strict UTF-8)." },
  invalid_path: { status: 400, meaning: "The request path is not valid percent-encoding." },
  request_aborted: { status: 400, meaning: "The client went away before the body arrived." },
  allowed_methods_unsupported: { status: 400, meaning: "`allowedMethods` was sent to the embed-token route, which does not take it." },
  image_url_unresolvable: { status: 400, meaning: "A relative line-item imageUrl without a storefront base URL to resolve it against." },
  invalid_item_selection: { status: 400, meaning: "An acceptance selection changes a locked line, drops a required one, names an unknown item or falls to the deposit." },
  invalid_scope: { status: 400, meaning: "A scope is unknown, staff-only, not grantable or of the wrong type for this credential." },
  invalid_environment_grants: { status: 400, meaning: "Environment grants of type `selected` without ids, or ids with another grant type." },
  invalid_subscription_state: { status: 400, meaning: "The subscription change does not apply to it as it stands (same plan, wrong status)." },
  quantity_unchanged: { status: 400, meaning: "A quantity change to the quantity the subscription already has." },
  refund_amount_exceeds_balance: { status: 400, meaning: "An order refund asks for more than is refundable; no money moved." },
  reserved_environment_slug: { status: 400, meaning: "The environment slug has a production or live component." },
  system_environment_locked: { status: 400, meaning: "A system environment (production, sandbox) cannot be archived." },
  invite_expired: { status: 400, meaning: "The invitation is past its lifetime." },
  invite_email_mismatch: { status: 400, meaning: "The invitation was sent to another email than the signed-in user's." },
  missing_token: { status: 400, meaning: "The download link has no token." },
  // 401: who is calling is not established
  unauthorized: { status: 401, meaning: "Missing, malformed, expired or revoked credentials." },
  invalid_token: { status: 401, meaning: "A link token (download, upload) is invalid or expired." },
  invalid_quote_token: { status: 401, meaning: "The publishable quote token is invalid." },
  // 402: money or the plan stands in the way
  payment_failed: { status: 402, meaning: "The processor declined the charge (`details.reason` says why)." },
  refund_failed: { status: 402, meaning: "The processor refused the refund." },
  workspace_not_live: { status: 402, meaning: "A production credential of a workspace that is not live yet." },
  workspace_not_entitled_for_live: { status: 402, meaning: "A production credential of a workspace without an active paying subscription." },
  trial_expired: { status: 402, meaning: "The workspace's trial ended without a payment method." },
  // 403: known caller, not allowed
  forbidden: { status: 403, meaning: "This credential may not use this route or origin." },
  permission_denied: { status: 403, meaning: "The member's roles do not allow this action." },
  insufficient_scopes: { status: 403, meaning: "The credential (or the manifest, for event subscriptions) lacks a required scope; `details.required` lists them." },
  application_key_workspace_route: { status: 403, meaning: "API keys cannot call workspace routes; use a dashboard session." },
  environment_grants_forbidden: { status: 403, meaning: "Only owners and workspace admins may set environment grants." },
  environment_mismatch: { status: 403, meaning: "The import belongs to another environment than the credential's." },
  bot_challenge_failed: { status: 403, meaning: "The bot-challenge token did not verify." },
  // 404: unknown (or another tenant's) resource
  not_found: { status: 404, meaning: "Unknown route or id, or an id of another application or environment." },
  cart_not_found: { status: 404, meaning: "Unknown cart id (or another merchant's)." },
  session_not_found: { status: 404, meaning: "Unknown checkout session id (or another merchant's)." },
  store_not_found: { status: 404, meaning: "No store answers to this application id and publishable token." },
  environment_not_found: { status: 404, meaning: "Unknown or archived environment, also an installation's pinned one at api-key mint." },
  file_not_uploaded: { status: 404, meaning: "The import's file is absent or empty." },
  no_errors: { status: 404, meaning: "The import's last pass reported no failed rows." },
  // 409: the resource's state conflicts with the request (or another request is on it)
  conflict: { status: 409, meaning: "Another request changed or holds the resource; retry." },
  accept_in_progress: { status: 409, meaning: "A concurrent acceptance of this quote is still materializing." },
  checkout_in_progress: { status: 409, meaning: "Completion of this checkout session is already in flight." },
  idempotency_in_progress: { status: 409, meaning: "The first request with this Idempotency-Key is still running." },
  refund_already_in_progress: { status: 409, meaning: "A concurrent refund holds this payment." },
  dispute_already_open: { status: 409, meaning: "The payment already has an open dispute." },
  dispute_resolution_in_progress: { status: 409, meaning: "Another request is resolving this dispute." },
  already_member: { status: 409, meaning: "The user is already a member of the workspace." },
  invite_already_pending: { status: 409, meaning: "A pending invitation for this email exists." },
  invite_not_pending: { status: 409, meaning: "The invitation is no longer pending." },
  client_owns_workspace: { status: 409, meaning: "The client has claimed the trial workspace; the partner can no longer act on it." },
  handoff_not_revocable: { status: 409, meaning: "The handoff was already claimed or revoked." },
  cannot_backup_default: { status: 409, meaning: "The default card cannot also be the backup card." },
  cannot_remove_default: { status: 409, meaning: "The default card cannot be deleted while an active subscription uses it." },
  cart_not_editable: { status: 409, meaning: "The cart is checked out or otherwise closed to edits." },
  customer_already_exists: { status: 409, meaning: "A customer with this email or externalId exists." },
  delivery_not_replayable: { status: 409, meaning: "Only dead-lettered deliveries can be replayed." },
  discount_code_taken: { status: 409, meaning: "Another discount has this code." },
  email_not_configured: { status: 409, meaning: "No mail transport is configured to send the invoice." },
  empty_revision: { status: 409, meaning: "The revision has no line to issue." },
  environment_slug_taken: { status: 409, meaning: "Another environment of the workspace has this slug." },
  extension_delisted: { status: 409, meaning: "The extension is delisted and takes no new installs." },
  fulfillment_state_changed: { status: 409, meaning: "The fulfillment changed while this request ran; retry." },
  installation_changed: { status: 409, meaning: "The installation changed meanwhile; read it and retry." },
  invalid_fulfillment_state: { status: 409, meaning: "The fulfillment's status does not allow this move." },
  invalid_import_state: { status: 409, meaning: "The import's status does not allow this step." },
  invalid_lifecycle: { status: 409, meaning: "The extension's lifecycle does not allow this move." },
  invalid_order_transition: { status: 409, meaning: "The order status table does not allow this move (`details.from`, `details.to`)." },
  invalid_payment_transition: { status: 409, meaning: "The payment's status does not allow this move." },
  invalid_quote_transition: { status: 409, meaning: "The quote status table does not allow this move (`details.from`, `details.to`)." },
  invalid_return_state: { status: 409, meaning: "The return's status does not allow this move." },
  net_terms_not_configured: { status: 409, meaning: "Net or deposit terms need an active Invoice Terms connector." },
  no_recipient: { status: 409, meaning: "The invoice has no recipient email." },
  no_webhook_endpoint: { status: 409, meaning: "The installed version declares no webhookUrl." },
  no_working_revision: { status: 409, meaning: "The quote has no working revision." },
  not_invoice: { status: 409, meaning: "The payment is not an invoice." },
  order_not_editable: { status: 409, meaning: "Line edits on a terminal order." },
  order_on_hold: { status: 409, meaning: "The order is on hold; nothing was written (the message repeats the reason)." },
  order_state_changed: { status: 409, meaning: "The order changed while this request ran; retry." },
  payment_not_capturable: { status: 409, meaning: "Only an authorized payment can be captured." },
  payment_not_disputed: { status: 409, meaning: "The payment has no open dispute." },
  payment_not_processing: { status: 409, meaning: "The payment is not processing." },
  payment_state_changed: { status: 409, meaning: "The payment changed while this request ran; retry." },
  pdf_not_ready: { status: 409, meaning: "The invoice PDF is not rendered yet." },
  quote_not_editable: { status: 409, meaning: "The quote's status does not allow edits." },
  quote_state_changed: { status: 409, meaning: "The quote changed while this request ran; retry." },
  revision_not_editable: { status: 409, meaning: "Only the working revision can be edited." },
  revision_superseded: { status: 409, meaning: "The revision is not the currently issued one (`details.currentRevisionId`)." },
  screenshot_limit_reached: { status: 409, meaning: "The extension has its maximum number of screenshots." },
  script_limit_reached: { status: 409, meaning: "The application has its maximum number of scripts." },
  undo_not_available: { status: 409, meaning: "Undo of a dry run or of a run still in flight." },
  unpriced_items: { status: 409, meaning: "The revision has lines without unitPrice (`details.itemIds`)." },
  validation_required: { status: 409, meaning: "Commit needs a dry run first." },
  version_exists: { status: 409, meaning: "This version number exists for the extension." },
  version_not_draft: { status: 409, meaning: "Only a draft version can change." },
  version_not_found: { status: 409, meaning: "The installation's pinned version no longer exists." },
  version_not_published: { status: 409, meaning: "Only a published version can be installed." },
  working_revision_exists: { status: 409, meaning: "The quote already has a working revision." },
  // 410: gone for good
  session_expired: { status: 410, meaning: "The checkout session expired." },
  quote_expired: { status: 410, meaning: "The revision is past its expiry." },
  // 413, 415: the body as sent
  payload_too_large: { status: 413, meaning: "The body exceeds the size limit (`details.limitBytes`)." },
  unsupported_media_type: { status: 415, meaning: "The body is not JSON (send Content-Type: application/json)." },
  unsupported_encoding: { status: 415, meaning: "The body's content encoding or charset is not supported." },
  // 422: the request is readable but a field is wrong
  validation_error: { status: 422, meaning: "A field is missing or has the wrong type, enum, format or value (`details.issues`)." },
  query_too_costly: { status: 422, meaning: "A GraphQL operation's cost (fields, multiplied by page sizes) is above GRAPHQL_MAX_COST (`details.cost`, `details.maxCost`)." },
  idempotency_key_reused: { status: 422, meaning: "The Idempotency-Key was used with another body." },
  currency_mismatch: { status: 422, meaning: "The currency differs from the application's (or the cart's)." },
  discount_invalid: { status: 422, meaning: "The discount code is expired, inactive, over its limit or invalid for the cart." },
  form_submitted_too_fast: { status: 422, meaning: "The form was submitted faster than a person fills it." },
  invalid_callback_url: { status: 422, meaning: "The install callback URL is not an absolute https URL." },
  invalid_order_state: { status: 422, meaning: "The order's status does not allow this (payment on a cancelled or closed order, fulfillment outside processing)." },
  invalid_script_url: { status: 422, meaning: "The script source URL is not allowed (scheme, credentials, private address)." },
  invalid_state: { status: 422, meaning: "The subscription's state does not allow this (retry when not past due, manual renewal of auto mode)." },
  invalid_webhook_url: { status: 422, meaning: "The webhook URL is not allowed (scheme, credentials, private address)." },
  missing_required_field: { status: 422, meaning: "The session's collect flags need a field that was not given." },
  no_payment_connection: { status: 422, meaning: "No active payment connection for this method." },
  order_not_on_hold: { status: 422, meaning: "Release of an order that is not on hold." },
  payment_method_not_allowed: { status: 422, meaning: "The session does not allow this payment method (`details` lists those it does)." },
  payment_not_disputable: { status: 422, meaning: "Only a captured payment can be disputed." },
  payment_not_failable: { status: 422, meaning: "mark-failed on a resolved payment." },
  refund_not_allowed: { status: 422, meaning: "The payment is not captured, fully refunded, or the amount is too large." },
  script_fetch_failed: { status: 422, meaning: "The script source could not be fetched." },
  script_integrity_mismatch: { status: 422, meaning: "The fetched script does not match its integrity hash." },
  script_too_large: { status: 422, meaning: "The fetched script exceeds the size limit." },
  session_not_open: { status: 422, meaning: "The checkout session is completed, cancelled or expired." },
  // 429
  rate_limited: { status: 429, meaning: "Too many requests; `Retry-After` says when to retry." },
  // 5xx: ours or a dependency's
  internal_error: { status: 500, meaning: "An unexpected error (masked; the request id is logged)." },
  template_render_failed: { status: 500, meaning: "The email template did not render." },
  bot_challenge_not_configured: { status: 503, meaning: "The form requires a bot challenge but the server has none configured." },
  bot_challenge_unavailable: { status: 503, meaning: "The bot-challenge verifier did not answer." },
  queue_unavailable: { status: 503, meaning: "No job worker is configured for this work." },
  storage_unavailable: { status: 503, meaning: "A signed file URL cannot be produced." },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

const entries: Record<string, ErrorEntry | undefined> = ERROR_CATALOGUE;

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(entries, code);
}

/** The codes whose status is 404: the ones `errors.notFound(what, code)` may name. */
export type NotFoundCode = { [C in ErrorCode]: (typeof ERROR_CATALOGUE)[C]["status"] extends 404 ? C : never }[ErrorCode];

/** The one status of a code: the catalogue's (a code the catalogue does not know answers 500, as unexpected). */
export function statusOf(code: ErrorCode): number;
export function statusOf(code: string): number | undefined;
export function statusOf(code: string): number | undefined {
  return isErrorCode(code) ? entries[code]!.status : undefined;
}

/** The catalogue as a list (for the OpenAPI document and the docs). */
export function errorCatalogue(): { code: ErrorCode; status: number; meaning: string }[] {
  return (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).map((code) => ({ code, ...ERROR_CATALOGUE[code] }));
}
