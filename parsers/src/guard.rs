//! Input guards that keep parsing linear on hostile input.
//!
//! html5ever checks element scopes by walking the stack of open elements, so markup nested
//! n deep costs O(n²): 20,000 nested quotes take minutes. Real Discuz pages nest about 30 deep.
//! Tags that would open deeper than [`MAX_DEPTH`] are dropped (with their closing tags); their
//! text stays.

use std::borrow::Cow;

pub(crate) const MAX_DEPTH: usize = 256;

/// Container tags Discuz closes explicitly (`<li>`, `<p>` and `<br>` are left open or void).
const NESTING: &[&[u8]] = &[
    b"div",
    b"blockquote",
    b"font",
    b"span",
    b"strong",
    b"table",
    b"tbody",
    b"tr",
    b"td",
    b"th",
    b"ul",
    b"ol",
    b"em",
    b"i",
    b"u",
    b"b",
    b"strike",
    b"a",
    b"center",
    b"dl",
    b"dd",
    b"dt",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
];

/// `html` with tags nested deeper than [`MAX_DEPTH`] removed; borrowed when nothing is.
pub(crate) fn limit_nesting(html: &str) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    // Fast path: too few tags to nest that deep.
    if bytes.len() < MAX_DEPTH * 5 {
        return Cow::Borrowed(html);
    }
    let mut depth: usize = 0;
    let mut out: Option<String> = None;
    let mut last = 0;
    let mut i = 0;
    while let Some(off) = bytes[i..].iter().position(|&b| b == b'<') {
        let start = i + off;
        let mut j = start + 1;
        let closing = bytes.get(j) == Some(&b'/');
        if closing {
            j += 1;
        }
        let name_start = j;
        while j < bytes.len() && bytes[j].is_ascii_alphanumeric() {
            j += 1;
        }
        let name = &bytes[name_start..j];
        i = start + 1;
        if name.is_empty() || !NESTING.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            continue;
        }
        let Some(gt) = bytes[j..].iter().position(|&b| b == b'>') else {
            break;
        };
        let end = j + gt + 1;
        let self_closing = bytes[end - 2] == b'/';
        let drop = if closing {
            let d = depth > MAX_DEPTH;
            depth = depth.saturating_sub(1);
            d
        } else if self_closing {
            false
        } else {
            depth += 1;
            depth > MAX_DEPTH
        };
        if drop {
            let o = out.get_or_insert_with(|| String::with_capacity(html.len()));
            o.push_str(&html[last..start]);
            last = end;
        }
        i = end;
    }
    match out {
        None => Cow::Borrowed(html),
        Some(mut o) => {
            o.push_str(&html[last..]);
            Cow::Owned(o)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_markup_is_untouched() {
        let html = "<div><p>a</p></div>".repeat(1000);
        assert!(matches!(limit_nesting(&html), Cow::Borrowed(_)));
    }

    #[test]
    fn deep_markup_is_flattened_text_kept() {
        let html = "<div class=\"quote\"><blockquote>".repeat(5000)
            + "x"
            + &"</blockquote></div>".repeat(5000);
        let out = limit_nesting(&html);
        assert!(out.contains('x'));
        assert_eq!(out.matches("<div").count(), MAX_DEPTH / 2);
        assert_eq!(out.matches("</div>").count(), MAX_DEPTH / 2);
    }

    #[test]
    fn odd_markup_does_not_panic() {
        for s in ["<", "</", "<div", "<div/>", "</div>", "<<<>>>", "<DIV>"] {
            let long = s.repeat(400);
            let _ = limit_nesting(&long);
        }
    }
}
