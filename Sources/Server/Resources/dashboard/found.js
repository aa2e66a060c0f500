// "Found a tag?" (/found): anyone, without an account, looks a tag up, writes to its owner or reports it
// hidden on them. Every answer reaches the page through textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);

async function post(path, body) {
  const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const text = await response.text();
  let data = {};
  try { data = text ? JSON.parse(text) : {}; } catch (_) { data = {}; }
  if (!response.ok) throw new Error(data.message || `the server answered ${response.status}`);
  return data;
}

function tag() { return $("tag").value.trim(); }

function clear(...ids) { for (const id of ids) $(id).textContent = ""; }

$("lookup-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  clear("lookup-result", "lookup-error");
  $("message-section").hidden = true; $("report-section").hidden = true;
  try {
    const answer = await post("/v1/found/lookup", { tag: tag() });
    $("lookup-result").textContent = answer.registered
      ? "This tag is on a bike registered here."
      : "No bike registered here carries this tag.";
    $("message-section").hidden = !answer.registered; $("report-section").hidden = !answer.registered;
  } catch (error) { $("lookup-error").textContent = error.message; }
});

$("message-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  clear("message-result", "message-error");
  try {
    await post("/v1/found/message", { tag: tag(), message: $("message").value, contact: $("contact").value || undefined });
    $("message-result").textContent = "Sent. Thank you: the owner gets your message by e-mail and push.";
    event.target.reset();
  } catch (error) { $("message-error").textContent = error.message; }
});

$("report-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  clear("report-result", "report-error");
  try {
    const receipt = await post("/v1/found/report", { tag: tag(), message: $("report-message").value || undefined,
                                                     contact: $("report-contact").value || undefined });
    $("report-result").textContent = `Reported (reference ${receipt.reference}). Where the tag goes is hidden from its owner from now on; the network's operator looks into it. Give this reference to the police if you go to them.`;
    event.target.reset();
  } catch (error) { $("report-error").textContent = error.message; }
});
