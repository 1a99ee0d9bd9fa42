// Form helpers of the admin editors (settings, flows): one way to send a change, show a
// 400's field errors beside their inputs, and reload after a 409.
import { ApiError } from "./api/client";
import type { FieldError, FlowSystem } from "./api/types";
import { showError } from "./ui";

export const SYSTEMS: FlowSystem[] = ["hosterp", "erp2", "crm", "marketing", "shipping"];

export type Reload = () => Promise<void>;

/** change sends a write: a 400's field errors go to setErrors, a 409 reloads and says so. */
export async function change<T>(send: () => Promise<T>, setErrors: (e: FieldError[]) => void, reload: Reload): Promise<T | null> {
  setErrors([]);
  try {
    return await send();
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) {
      await reload();
      showError(new ApiError({ ...e.problem, title: "Changed by someone else — reloaded",
        detail: "Nothing of this change was saved. The page now shows the current state; make the change again if it still applies." }));
      return null;
    }
    if (e instanceof ApiError && e.status === 400) setErrors(e.problem.errors ?? []);
    showError(e);
    return null;
  }
}

const errId = (field: string) => "err-" + field.replace(/[^a-zA-Z0-9_-]/g, "-");

/** FieldMessage is the server's message for one field, beside its input. */
export function FieldMessage({ errors, field }: { errors: FieldError[]; field: string }) {
  const e = errors.find((x) => x.field === field);
  return e ? <span class="field-error" id={errId(field)}>{e.message}</span> : null;
}

/** invalid are the attributes tying an input to its field's message. */
export function invalid(errors: FieldError[], field: string, describedBy?: string) {
  const bad = errors.some((x) => x.field === field);
  const ids = [bad ? errId(field) : "", describedBy ?? ""].filter(Boolean).join(" ");
  return { "aria-invalid": bad || undefined, "aria-describedby": ids || undefined };
}

/** OtherErrors lists the refused fields no input of the section shows. */
export function OtherErrors({ errors, shown }: { errors: FieldError[]; shown: string[] }) {
  const rest = errors.filter((e) => !shown.includes(e.field));
  if (rest.length === 0) return null;
  return (
    <ul class="field-errors">
      {rest.map((e) => <li><code>{e.field}</code> {e.message}</li>)}
    </ul>
  );
}
