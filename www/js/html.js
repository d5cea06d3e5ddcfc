// Text into HTML: the one escape every view uses before putting names,
// labels or messages from traces and runs into innerHTML.

/** `s` with &, <, > and " escaped, safe in element text and quoted attributes. */
export const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
