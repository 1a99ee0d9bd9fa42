// Settings (admins): the tenant's flags, connectors, manifest overrides, host secrets, the approval
// policy and the learned fixes (settings-policy.tsx, settings-knowledge.tsx).
// Each section saves on its own with one write; a 400 puts each refused field's message
// beside its input and changes nothing, a 409 reloads and says so. Connector credentials
// are write-only (never pre-filled, never shown back) and a rotated secret is shown once,
// in a dialog that forgets it when it closes.
import { useEffect, useRef, useState } from "preact/hooks";
import { read, write } from "../api/client";
import { demoSettings } from "../api/demo";
import type { FieldError, FlowSystem, ManifestOverride, SecretPurpose, SecretRotation, Settings, SettingsPatch } from "../api/types";
import { change, FieldMessage, invalid, OtherErrors, type Reload, SYSTEMS } from "../forms";
import { Ago, announce, Chip, ConfirmDialog, PanelError, showError } from "../ui";
import { KnowledgeList } from "./settings-knowledge";
import { SystemNames } from "./settings-aliases";
import { ApprovalPolicyEditor } from "./settings-policy";
import { TestConnection, VENDORS } from "./flow-tools";

const POLICIES: ManifestOverride["policy"][] = ["reject_with_alert", "source_wins", "require_approval"];
const PURPOSES: { purpose: SecretPurpose; use: string }[] = [
  { purpose: "ingest", use: "signs the host ERP's sync-error webhook" },
  { purpose: "finance", use: "signs finance approval requests" },
  { purpose: "embedded", use: "signs the host's embedded-session bootstrap" },
  // Each source system signs its own flow change events, so one system cannot post as another.
  ...SYSTEMS.map((sys) => ({ purpose: ("flow." + sys) as SecretPurpose, use: `signs ${sys}'s flow change events` })),
];

interface Flag {
  key: string;
  label: string;
  /** on says whether the stored value enables the feature. */
  on: (v: string | undefined) => boolean;
  /** unset says what an absent value means. */
  unset: string;
}

// The sync-error flags enable only on the exact string "true"; finance approvals are on
// unless "false" (they predate the flag), as shared/tenant reads them.
const FLAGS: Flag[] = [
  { key: "sync_error_assist.enabled", label: "Sync-error assist", on: (v) => v === "true", unset: "not set: off" },
  { key: "sync_error_assist.webhook_enabled", label: "Sync-error webhook", on: (v) => v === "true", unset: "not set: off" },
  { key: "finance_ops.enabled", label: "Finance approvals", on: (v) => v !== "false", unset: "not set: on by default" },
];
// The automation switches (admins only: an embedded session may not change them). auto_apply
// lets enforced auto rules of the approval policy write, only on "true"; auto_retry retries
// connection, intermittent and rate-limit errors on the schedule unless "false".
const AUTOMATION: Flag[] = [
  { key: "sync_error_assist.auto_apply", label: "Auto-apply: enforced policy rules write their fixes", on: (v) => v === "true", unset: "not set: off" },
  { key: "sync_error_assist.auto_retry", label: "Auto-retry: connection, intermittent and rate-limit errors retried on the schedule", on: (v) => v !== "false", unset: "not set: on by default" },
];
// Settings typed as text (admins only; an embedded session changes the switches alone).
const TEXTS = [
  { key: "embedded.allowed_roles", label: "Embedded allowed roles",
    hint: "comma-separated roles a host may give embedded sessions (operator, approver); empty allows none" },
  { key: "embedded.allowed_origins", label: "Embedded allowed origins",
    hint: "exact https origins of the ERP pages that may frame the console (https://1234567.app.erp.example.com); empty allows none" },
  { key: "finance_ops.confirm_above", label: "Confirm finance approvals above",
    hint: "approving a larger amount (in the approval's currency) asks for confirmation; empty means 10000" },
];


/** SettingsPanel is the admins' whole settings page; embedded (the host's settings module)
 *  it shows the feature switches only, which is all a host's session may change. */
export function SettingsPanel({ embedded = false }: { embedded?: boolean }) {
  const [s, setS] = useState<Settings | null>(null);
  const [demo, setDemo] = useState(false);
  // Bumped on every reload after a conflict, so the sections drop what was being edited.
  const [version, setVersion] = useState(0);
  const [failed, setFailed] = useState<unknown>(null);
  const load = async () => {
    try {
      const r = await read<Settings>("/api/settings", demoSettings);
      setS(r.data);
      setDemo(r.demo);
      setFailed(null);
    } catch (e) {
      setFailed(e);
    }
  };
  const reload = async () => {
    await load();
    setVersion((v) => v + 1);
  };
  useEffect(() => {
    void load();
  }, []);
  if (failed !== null && !s) return <PanelError what="Settings" error={failed} onRetry={() => void load()} />;
  if (!s) return <p aria-busy="true">Loading settings…</p>;
  const ctx = { s, demo, saved: setS, reload, refresh: load };
  return (
    <section aria-labelledby="settings-h" class="settings">
      <div class="toolbar">
        <h1 id="settings-h">Settings</h1>
        <span class="note">tenant <strong>{s.tenantId}</strong>, changed <Ago at={s.updatedAt} /></span>
      </div>
      <Flags key={"f" + version + JSON.stringify(s.settings)} {...ctx} embedded={embedded} />
      {embedded ? (
        <p class="note">Connectors, manifest overrides, secrets and embedded roles are changed by an admin in the SyncAssist console.</p>
      ) : (
        <>
          <Connectors key={"c" + version} {...ctx} />
          <Overrides key={"o" + version + JSON.stringify(s.manifestOverrides)} {...ctx} />
          <SystemNames key={"a" + version} demo={demo} />
          <Secrets {...ctx} />
          <ApprovalPolicyEditor key={"p" + version} demo={demo} settings={s.settings} />
          <KnowledgeList key={"k" + version} demo={demo} />
        </>
      )}
    </section>
  );
}

interface SectionProps {
  s: Settings;
  demo: boolean;
  saved: (s: Settings) => void;
  /** reload reads the settings again after a conflict, dropping what was being edited. */
  reload: Reload;
  /** refresh reads the settings again, keeping what is being edited. */
  refresh: Reload;
}

function Flags({ s, demo, saved, reload, embedded }: SectionProps & { embedded: boolean }) {
  const [draft, setDraft] = useState<Record<string, string | undefined>>(s.settings);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [busy, setBusy] = useState(false);
  const flags = embedded ? FLAGS : [...FLAGS, ...AUTOMATION];
  const keys = [...flags, ...(embedded ? [] : TEXTS)].map((f) => f.key);
  const changed = keys.filter((k) => (draft[k] ?? "") !== (s.settings[k] ?? ""));
  const save = async (e: Event) => {
    e.preventDefault();
    if (changed.length === 0) return;
    const patch: SettingsPatch = { settings: Object.fromEntries(changed.map((k) => [k, draft[k] ?? ""])) };
    setBusy(true);
    const r = await change(() => write<Settings>("PATCH", "/api/settings", patch), setErrors, reload);
    setBusy(false);
    if (r) {
      saved(r);
      announce(`Saved ${changed.length === 1 ? changed[0] : changed.length + " settings"}`);
    }
  };
  return (
    <section aria-labelledby="flags-h">
      <h2 id="flags-h">Flags</h2>
      <form onSubmit={save} class="flags">
        {flags.map((f) => {
          const stored = s.settings[f.key];
          const on = f.on(draft[f.key]);
          const field = "settings." + f.key;
          const noteId = "note-" + f.key.replace(/\W/g, "-");
          const odd = stored !== undefined && stored !== "true" && stored !== "false";
          return (
            <div class="flag">
              <label>
                <input type="checkbox" role="switch" checked={on} disabled={demo}
                  onChange={(e) => setDraft({ ...draft, [f.key]: (e.target as HTMLInputElement).checked ? "true" : "false" })}
                  {...invalid(errors, field, noteId)} />
                {" "}{f.label}
              </label>
              <Chip kind={on ? "written" : "skipped"}>{on ? "on" : "off"}</Chip>
              <span id={noteId} class={odd ? "warn" : "note"}>
                <code>{f.key}</code>{" "}
                {stored === undefined ? f.unset : odd ? <>stored “{stored}”, which reads as {f.on(stored) ? "on" : "off"}</> : <>stored “{stored}”</>}
              </span>
              <FieldMessage errors={errors} field={field} />
            </div>
          );
        })}
        {!embedded && TEXTS.map((t) => {
          const id = t.key.replace(/\W/g, "-");
          return (
            <div class="flag">
              <label for={id}>{t.label}</label>
              <input id={id} type="text" value={draft[t.key] ?? ""} disabled={demo} size={32}
                onInput={(e) => setDraft({ ...draft, [t.key]: (e.target as HTMLInputElement).value })}
                {...invalid(errors, "settings." + t.key, id + "-hint")} />
              <span id={id + "-hint"} class="note">{t.hint}</span>
              <FieldMessage errors={errors} field={"settings." + t.key} />
            </div>
          );
        })}
        <OtherErrors errors={errors} shown={keys.map((k) => "settings." + k)} />
        <div class="actions">
          <button type="submit" class="primary" disabled={demo || busy || changed.length === 0}>{busy ? "Saving…" : "Save flags"}</button>
          {changed.length > 0 && <button type="button" onClick={() => { setDraft(s.settings); setErrors([]); }}>Discard changes</button>}
        </div>
      </form>
    </section>
  );
}

function Connectors({ s, demo, saved, reload }: SectionProps) {
  const [editing, setEditing] = useState<FlowSystem | null>(null);
  const [removing, setRemoving] = useState<FlowSystem | null>(null);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const patch = async (p: SettingsPatch, done: string): Promise<boolean> => {
    const r = await change(() => write<Settings>("PATCH", "/api/settings", p), setErrors, reload);
    if (!r) return false;
    saved(r);
    announce(done);
    return true;
  };
  const remove = async (sys: FlowSystem) => {
    setRemoving(null);
    await patch({ connectors: { [sys]: null } }, `Removed the ${sys} connector`);
  };
  return (
    <section aria-labelledby="connectors-h">
      <h2 id="connectors-h">Connectors</h2>
      <table class="grid plain">
        <thead><tr><th scope="col">System</th><th scope="col">Base URL</th><th scope="col">Credential</th><th scope="col"><span class="sr-live">Actions</span></th></tr></thead>
        <tbody>
          {SYSTEMS.map((sys) => {
            const c = s.connectors[sys];
            return [
              <tr key={sys}>
                <th scope="row">{VENDORS[sys]} <span class="note mono">{sys}</span></th>
                <td>{c ? <span class="mono">{c.baseUrl}</span> : <span class="note">not configured</span>}</td>
                <td>{c && <Chip kind={c.hasToken ? "written" : "skipped"}>{c.hasToken ? "credential set" : "no credential"}</Chip>}</td>
                <td class="row-actions">
                  <button type="button" disabled={demo} aria-expanded={editing === sys} aria-controls={editing === sys ? "edit-" + sys : undefined}
                    onClick={() => { setErrors([]); setEditing(editing === sys ? null : sys); }}>{c ? "Edit" : "Configure"}<span class="sr-live"> {sys}</span></button>
                  {c && <button type="button" disabled={demo} onClick={() => setRemoving(sys)}>Remove<span class="sr-live"> {sys}</span></button>}
                  {c && <TestConnection system={sys} disabled={demo} />}
                </td>
              </tr>,
              editing === sys && (
                <tr key={sys + "-edit"} class="editing">
                  <td colSpan={4}>
                    <ConnectorForm sys={sys} baseUrl={c?.baseUrl ?? ""} hasToken={!!c?.hasToken} errors={errors}
                      onCancel={() => { setEditing(null); setErrors([]); }}
                      onSave={async (baseUrl, token) => {
                        const ok = await patch({ connectors: { [sys]: token ? { baseUrl, token } : { baseUrl } } },
                          `Saved the ${sys} connector` + (token ? " and its new credential" : ""));
                        if (ok) setEditing(null);
                      }} />
                  </td>
                </tr>
              ),
            ];
          })}
        </tbody>
      </table>
      {editing === null && <OtherErrors errors={errors} shown={[]} />}
      {removing && (
        <ConfirmDialog title={`Remove the ${removing} connector?`} confirm="Remove" onConfirm={() => void remove(removing)} onClose={() => setRemoving(null)}>
          <p>Its base URL and stored credential are deleted. Flows and fixes that write to {removing} fail until it is configured again.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function ConnectorForm(props: {
  sys: FlowSystem;
  baseUrl: string;
  hasToken: boolean;
  errors: FieldError[];
  onSave: (baseUrl: string, token: string) => Promise<void>;
  onCancel: () => void;
}) {
  const { sys, errors } = props;
  const [baseUrl, setBaseUrl] = useState(props.baseUrl);
  // The credential lives only in this form while it is open; it is never pre-filled.
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);
  // A credential belongs to its address: the service deletes it when the base URL moves,
  // so a move asks for it again rather than saving the connector without one by surprise.
  const moved = props.hasToken && baseUrl.trim() !== props.baseUrl;
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    await props.onSave(baseUrl.trim(), token);
    setBusy(false);
  };
  const urlField = `connectors.${sys}.baseUrl`;
  return (
    <form id={"edit-" + sys} class="connector-form" aria-label={`Edit the ${sys} connector`} onSubmit={submit}
      onKeyDown={(e) => e.key === "Escape" && props.onCancel()}>
      <div class="field">
        <label for={"url-" + sys}>{sys} base URL</label>
        <input ref={first} id={"url-" + sys} type="url" required value={baseUrl} size={48} spellcheck={false}
          onInput={(e) => setBaseUrl((e.target as HTMLInputElement).value)} {...invalid(errors, urlField, "url-hint-" + sys)} />
        <span id={"url-hint-" + sys} class="note">https, reachable from the service (no private or metadata addresses)</span>
        <FieldMessage errors={errors} field={urlField} />
      </div>
      <div class="field">
        <label for={"token-" + sys}>{sys} credential</label>
        <input id={"token-" + sys} type="password" autocomplete="new-password" value={token} size={32} required={moved}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)} {...invalid(errors, `connectors.${sys}.token`, "token-hint-" + sys)} />
        <span id={"token-hint-" + sys} class={moved ? "warn" : "note"}>
          {moved ? "Enter the credential again for the new address: the stored one is only ever sent to the address it was given for."
            : props.hasToken ? "A credential is stored; leave empty to keep it." : "No credential is stored; leave empty for none."} It is never shown back.
        </span>
        <FieldMessage errors={errors} field={`connectors.${sys}.token`} />
      </div>
      <OtherErrors errors={errors} shown={[urlField, `connectors.${sys}.token`]} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>{busy ? "Saving…" : `Save ${sys}`}</button>
        <button type="button" onClick={props.onCancel}>Cancel</button>
      </div>
    </form>
  );
}

interface Row {
  entity: string;
  field: string;
  owner: FlowSystem;
  policy: ManifestOverride["policy"];
}

const toRows = (o: ManifestOverride[]): Row[] => o.map((e) => ({ entity: e.entity, field: e.field ?? "", owner: e.owner, policy: e.policy }));

function Overrides({ s, demo, saved, reload }: SectionProps) {
  const [rows, setRows] = useState<Row[]>(toRows(s.manifestOverrides));
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [busy, setBusy] = useState(false);
  const table = useRef<HTMLTableElement>(null);
  const added = useRef(false);
  useEffect(() => {
    // A row just added gets the focus on its entity.
    if (added.current) table.current?.querySelector<HTMLInputElement>("tbody tr:last-child input")?.focus();
    added.current = false;
  }, [rows.length]);
  const dirty = JSON.stringify(rows) !== JSON.stringify(toRows(s.manifestOverrides));
  const set = (i: number, r: Partial<Row>) => setRows(rows.map((x, j) => (j === i ? { ...x, ...r } : x)));
  const save = async (e: Event) => {
    e.preventDefault();
    const entries: ManifestOverride[] = rows.map((r) => ({ entity: r.entity.trim(), ...(r.field.trim() ? { field: r.field.trim() } : {}), owner: r.owner, policy: r.policy }));
    setBusy(true);
    const r = await change(() => write<Settings>("PUT", "/api/settings/manifest-overrides", { entries }), setErrors, reload);
    setBusy(false);
    if (r) {
      saved(r);
      announce(`Saved ${entries.length} manifest override${entries.length === 1 ? "" : "s"}`);
    }
  };
  return (
    <section aria-labelledby="overrides-h">
      <h2 id="overrides-h">Manifest overrides</h2>
      <p class="note">Each entry replaces the default ownership manifest's entry for the same entity and field, or adds one. An empty field is the entity-level entry.</p>
      <form onSubmit={save}>
        <table class="grid plain" ref={table}>
          <thead><tr><th scope="col">Entity</th><th scope="col">Field</th><th scope="col">Owner</th><th scope="col">Policy</th><th scope="col"><span class="sr-live">Actions</span></th></tr></thead>
          <tbody>
            {rows.map((r, i) => (
              <tr>
                <td><input type="text" required aria-label={`Entity, row ${i + 1}`} value={r.entity} disabled={demo} {...invalid(errors, "entries", undefined)}
                  onInput={(e) => set(i, { entity: (e.target as HTMLInputElement).value })} /></td>
                <td><input type="text" aria-label={`Field, row ${i + 1}`} value={r.field} disabled={demo} placeholder="(entity)"
                  onInput={(e) => set(i, { field: (e.target as HTMLInputElement).value })} /></td>
                <td><select aria-label={`Owner, row ${i + 1}`} value={r.owner} disabled={demo} onChange={(e) => set(i, { owner: (e.target as HTMLSelectElement).value as FlowSystem })}>
                  {SYSTEMS.map((x) => <option value={x}>{x}</option>)}
                </select></td>
                <td><select aria-label={`Policy, row ${i + 1}`} value={r.policy} disabled={demo} onChange={(e) => set(i, { policy: (e.target as HTMLSelectElement).value as Row["policy"] })}>
                  {POLICIES.map((x) => <option value={x}>{x}</option>)}
                </select></td>
                <td><button type="button" disabled={demo} onClick={() => setRows(rows.filter((_, j) => j !== i))}>Remove<span class="sr-live"> row {i + 1}</span></button></td>
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && <p class="empty">No overrides: the default manifest applies as it is.</p>}
        <FieldMessage errors={errors} field="entries" />
        <OtherErrors errors={errors} shown={["entries"]} />
        <div class="actions">
          <button type="button" disabled={demo} onClick={() => { added.current = true; setRows([...rows, { entity: "", field: "", owner: "hosterp", policy: "reject_with_alert" }]); }}>Add override</button>
          <button type="submit" class="primary" disabled={demo || busy || !dirty}>{busy ? "Saving…" : "Save overrides"}</button>
          {dirty && <button type="button" onClick={() => { setRows(toRows(s.manifestOverrides)); setErrors([]); }}>Discard changes</button>}
        </div>
      </form>
    </section>
  );
}

function Secrets({ s, demo, refresh }: SectionProps) {
  const [asking, setAsking] = useState<SecretPurpose | null>(null);
  // The rotated secret lives here only while its dialog is open.
  const [shown, setShown] = useState<SecretRotation | null>(null);
  const rotate = async (purpose: SecretPurpose) => {
    setAsking(null);
    try {
      const r = await write<SecretRotation>("POST", "/api/settings/webhook-secret/rotate", { purpose });
      setShown(r);
      announce(`Rotated the ${purpose} secret; the new one is shown once in the dialog`);
    } catch (e) {
      showError(e);
    }
    await refresh();
  };
  return (
    <section aria-labelledby="secrets-h">
      <h2 id="secrets-h">Webhook secrets</h2>
      <table class="grid plain">
        <thead><tr><th scope="col">Purpose</th><th scope="col">Used for</th><th scope="col">Current since</th><th scope="col">Retiring</th><th scope="col"><span class="sr-live">Actions</span></th></tr></thead>
        <tbody>
          {PURPOSES.map(({ purpose, use }) => {
            const v = s.secrets[purpose];
            return (
              <tr>
                <th scope="row">{purpose}</th>
                <td>{use}</td>
                <td>{v?.currentSince ? <Ago at={v.currentSince} /> : <span class="note">none</span>}</td>
                <td>{v && v.retiringAt.length > 0
                  ? v.retiringAt.map((at, i) => <>{i > 0 && ", "}previous stops verifying <Ago at={at} /></>)
                  : <span class="note">none</span>}</td>
                <td><button type="button" disabled={demo} onClick={() => setAsking(purpose)}>Rotate<span class="sr-live"> the {purpose} secret</span></button></td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {asking && (
        <ConfirmDialog title={`Rotate the ${asking} secret?`} confirm="Rotate" onConfirm={() => void rotate(asking)} onClose={() => setAsking(null)}>
          <p>A new secret becomes current now and is shown once. The current one keeps verifying for 24 hours, so the host has a day to switch to the new one.</p>
          {(s.secrets[asking]?.retiringAt.length ?? 0) > 0 && <p class="warn">A secret still retiring from an earlier rotation stops verifying at once.</p>}
        </ConfirmDialog>
      )}
      {shown && <SecretDialog rotation={shown} onClose={() => setShown(null)} />}
    </section>
  );
}

/** SecretDialog shows a rotated secret once; closing it forgets the secret, so closing
 *  (Esc included) before it was copied asks first. */
function SecretDialog({ rotation, onClose }: { rotation: SecretRotation; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const close = () => (copied || leaving ? ref.current?.close() : setLeaving(true));
  useEffect(() => {
    ref.current?.showModal();
    field.current?.select();
  }, []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(rotation.secret);
      setCopied(true);
      announce("Copied the secret to the clipboard");
    } catch {
      field.current?.select();
      announce("Copying was not allowed: the secret is selected, copy it with the keyboard");
    }
  };
  return (
    <dialog ref={ref} aria-labelledby="secret-h" aria-describedby="secret-once" onClose={onClose} class="secret"
      onCancel={(e) => { if (!copied && !leaving) { e.preventDefault(); setLeaving(true); } }}>
      <h2 id="secret-h">New {rotation.purpose} secret</h2>
      <p id="secret-once"><strong>Copy it now: you will not see it again.</strong> Closing this dialog forgets it.</p>
      <label for="secret-value">Secret</label>
      <div class="toolbar">
        <input ref={field} id="secret-value" class="mono" type="text" readOnly value={rotation.secret} size={52} autocomplete="off" spellcheck={false}
          onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <button type="button" onClick={() => void copy()}>{copied ? "Copied ✓" : "Copy"}</button>
      </div>
      <p class="note">The previous secret stops verifying <Ago at={rotation.previousRetiresAt} /> ({new Date(rotation.previousRetiresAt).toLocaleString()}).</p>
      {leaving && !copied && <p class="warn" role="alert">You have not copied the secret, and it cannot be shown again. Close anyway?</p>}
      <div class="actions">
        <button type="button" class="primary" onClick={close}>{leaving && !copied ? "Close without copying" : "Close"}</button>
        {leaving && !copied && <button type="button" onClick={() => setLeaving(false)}>Keep it open</button>}
      </div>
    </dialog>
  );
}
