// System names: the names the tenant's hosts send for its systems (an error's
// externalSystem, "Business Central") and the connector system each resolves to. The
// queue's system filter, its rows and the insights read rows by the resolved system; the
// name as sent stays on the row. The built-in names are marked as defaults; an admin adds a
// name of the tenant's own (over a default of the same name) or removes one, audited by the
// service.
import { useEffect, useState } from "preact/hooks";
import { read, write } from "../api/client";
import type { FieldError, FlowSystem, SystemAliases } from "../api/types";
import { change, FieldMessage, invalid, OtherErrors, SYSTEMS } from "../forms";
import { announce, Chip, PanelError } from "../ui";

const DEFAULTS: Record<string, FlowSystem> = {
  "Business Central": "erp2", "Dynamics 365 Business Central": "erp2", "Microsoft Dynamics 365 Business Central": "erp2", BC: "erp2",
  ShipStation: "shipping", Salesforce: "crm", SFDC: "crm", Mailchimp: "marketing", NetSuite: "hosterp", "Oracle NetSuite": "hosterp",
};

const demoAliases = (): SystemAliases => ({
  aliases: {}, defaults: DEFAULTS, systems: SYSTEMS,
  entries: Object.entries(DEFAULTS).map(([name, system]) => ({ name, system, default: true }))
    .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase())),
});

export function SystemNames({ demo }: { demo: boolean }) {
  const [v, setV] = useState<SystemAliases | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const [name, setName] = useState("");
  const [system, setSystem] = useState<FlowSystem>("erp2");
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [busy, setBusy] = useState(false);
  const load = async () => {
    try {
      setV((await read<SystemAliases>("/api/settings/system-aliases", demoAliases)).data);
      setFailed(null);
    } catch (e) {
      setFailed(e);
    }
  };
  useEffect(() => {
    void load();
  }, []);
  const put = async (aliases: Record<string, FlowSystem>, said: string) => {
    setBusy(true);
    const r = await change(() => write<SystemAliases>("PUT", "/api/settings/system-aliases", { aliases }), setErrors, load);
    setBusy(false);
    if (r) {
      setV(r);
      announce(said);
    }
    return r !== null;
  };
  const add = async (e: Event) => {
    e.preventDefault();
    if (!v) return;
    const n = name.trim();
    if (await put({ ...v.aliases, [n]: system }, `“${n}” now resolves to ${system}`)) setName("");
  };
  const remove = (n: string) => {
    if (!v) return;
    const next = { ...v.aliases };
    delete next[n];
    void put(next, `Removed the system name “${n}”`);
  };
  const nameField = "aliases." + name.trim();
  return (
    <section aria-labelledby="aliases-h">
      <h2 id="aliases-h">System names</h2>
      <p class="note">The names your hosts send for your systems (a sync error's external system). The queue, its system filter and the
        insights read each row by the system its name resolves to; the row keeps the name as sent. Names match without case.</p>
      {failed !== null && <PanelError what="The system names" error={failed} onRetry={() => void load()} />}
      {v && (
        <table class="grid plain">
          <thead><tr><th scope="col">Name as sent</th><th scope="col">Resolves to</th><th scope="col"><span class="sr-live">Actions</span></th></tr></thead>
          <tbody>
            {v.entries.map((e) => (
              <tr key={e.name}>
                <th scope="row" class="mono">{e.name}</th>
                <td>{e.system}</td>
                <td class="row-actions">{e.default ? <Chip>default</Chip> : (
                  <button type="button" disabled={demo || busy} onClick={() => remove(e.name)}>Remove<span class="sr-live"> {e.name}</span></button>)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form onSubmit={add} class="connector-form" aria-label="Add a system name">
        <div class="field">
          <label for="alias-name">Name as sent</label>
          <input id="alias-name" type="text" required maxLength={128} size={32} value={name} disabled={demo} spellcheck={false}
            placeholder="Business Central EU" onInput={(e) => setName((e.target as HTMLInputElement).value)} {...invalid(errors, nameField)} />
          <FieldMessage errors={errors} field={nameField} />
        </div>
        <div class="field">
          <label for="alias-system">Resolves to</label>
          <select id="alias-system" value={system} disabled={demo} onChange={(e) => setSystem((e.target as HTMLSelectElement).value as FlowSystem)}>
            {SYSTEMS.map((x) => <option value={x}>{x}</option>)}
          </select>
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={demo || busy || !v}>{busy ? "Saving…" : "Add name"}</button>
        </div>
      </form>
      <OtherErrors errors={errors} shown={[nameField]} />
    </section>
  );
}
