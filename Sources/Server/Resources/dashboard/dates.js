// A bike's important dates (insurance, inspection, service) on its page: the owner adds and deletes
// them, and sees when each reminder goes out. Uses app.js's api, el, $, state and when.
"use strict";

/** The owner's zone, so the reminder comes at 09:00 where they are. */
function ownerTimeZone() {
  try { return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC"; } catch (_) { return "UTC"; }
}

function dueText(due) {
  const [year, month, day] = due.split("-").map(Number);
  const date = new Date(year, month - 1, day);
  return isNaN(date) ? due : date.toLocaleDateString(undefined, { dateStyle: "medium" });
}

function reminderText(date) {
  if (date.reminder === "past") return "the day has passed";
  if (date.reminder === "sent") return `reminded ${when(date.remindedAt)}`;
  return `reminder ${when(date.remindAt)}`;
}

async function loadDates() {
  const bikeId = state.selected;
  if (!bikeId) return;
  $("date-error").textContent = "";
  try {
    const { dates } = await api("GET", `/v1/bikes/${encodeURIComponent(bikeId)}/dates`);
    if (bikeId !== state.selected) return;
    $("dates").replaceChildren(...dates.map((date) => el("li", { "data-date": date.id, "data-reminder": date.reminder },
      el("span", { text: `${date.name}: ${dueText(date.due)} (${reminderText(date)})` }),
      el("button", { type: "button", class: "secondary", "aria-label": `Delete ${date.name}`, text: "Delete",
        onclick: () => deleteDate(date) }))));
    $("dates-empty").hidden = dates.length > 0;
  } catch (error) { $("date-error").textContent = error.message; }
}

async function addDate(event) {
  event.preventDefault();
  $("date-error").textContent = "";
  const name = $("date-name").value.trim();
  const due = $("date-due").value;
  if (!name) { $("date-error").textContent = "Say what falls due, e.g. Insurance renewal."; $("date-name").focus(); return; }
  if (!due) { $("date-error").textContent = "Choose the day it falls due."; $("date-due").focus(); return; }
  try {
    await api("POST", `/v1/bikes/${encodeURIComponent(state.selected)}/dates`, {
      name, due, remindDaysBefore: Number($("date-lead").value), timeZone: ownerTimeZone() });
    $("date-form").reset();
    await loadDates();
  } catch (error) { $("date-error").textContent = error.message; }
}

async function deleteDate(date) {
  $("date-error").textContent = "";
  try {
    await api("DELETE", `/v1/bikes/${encodeURIComponent(date.bikeId)}/dates/${encodeURIComponent(date.id)}`);
    await loadDates();
  } catch (error) { $("date-error").textContent = error.message; }
}

document.addEventListener("DOMContentLoaded", () => { $("date-form").addEventListener("submit", addDate); });
