//! Comparing a proof's `htu` with the endpoint's URL: both in the normal form of RFC 3986
//! §6.2.2 (case, percent-encoding, dot segments) and §6.2.3 (default port, empty path), as
//! RFC 9449 §4.3 asks, so that two spellings of one URL match and nothing else does.

use super::super::metadata::ResourceUrl;

/// The normal form of a proof's `htu`, its query and fragment ignored (RFC 9449 §4.3); `None`
/// when it is no absolute `http(s)` URL, or has a user in it.
pub(crate) fn of_htu(htu: &str) -> Option<String> {
    let without_fragment = htu.split_once('#').map_or(htu, |(before, _)| before);
    let without_query = without_fragment
        .split_once('?')
        .map_or(without_fragment, |(before, _)| before);
    let url = ResourceUrl::parse(without_query).ok()?;
    Some(of_url(&url))
}

/// The normal form of a URL already checked by [`ResourceUrl::parse`].
pub(crate) fn of_url(url: &ResourceUrl) -> String {
    let https = url.origin.starts_with("https:");
    let (host, port) = split_port(&url.authority);
    let default_port = if https { "443" } else { "80" };
    let mut out = String::with_capacity(url.origin.len() + url.path.len() + 1);
    out.push_str(if https { "https://" } else { "http://" });
    out.push_str(&decode_unreserved(host).to_ascii_lowercase());
    // `:080` is port 80: compare numbers, not digits.
    let port = port.map(|p| match p.trim_start_matches('0') {
        "" => "0",
        digits => digits,
    });
    if let Some(port) = port.filter(|p| *p != default_port) {
        out.push(':');
        out.push_str(port);
    }
    let path = decode_unreserved(&url.path);
    out.push_str(&remove_dot_segments(if path.is_empty() {
        "/"
    } else {
        &path
    }));
    out
}

/// `host[:port]` split at the port's colon (not at the colons of an IPv6 literal); an empty
/// port is no port.
fn split_port(authority: &str) -> (&str, Option<&str>) {
    let host_end = match authority.rfind(']') {
        Some(end) => end + 1,
        None => authority.rfind(':').unwrap_or(authority.len()),
    };
    let (host, rest) = authority.split_at(host_end);
    (host, rest.strip_prefix(':').filter(|port| !port.is_empty()))
}

/// Percent-escapes of unreserved characters decoded, the others' hex digits in upper case
/// (RFC 3986 §6.2.2.1–2). A `%` without two hex digits after it is kept as it is.
fn decode_unreserved(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) => {
                out.push(char::from(byte));
                i += 3;
            }
            Some(byte) => {
                out.push_str(&format!("%{byte:02X}"));
                i += 3;
            }
            None => {
                out.push(char::from(bytes[i]));
                i += 1;
            }
        }
    }
    out
}

/// RFC 3986 §5.2.4, on an absolute path.
fn remove_dot_segments(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut input = path;
    while !input.is_empty() {
        if let Some(rest) = input.strip_prefix("../") {
            input = rest;
        } else if let Some(rest) = input.strip_prefix("./") {
            input = rest;
        } else if input.starts_with("/./") || input == "/." {
            input = &input[2..];
            if input.is_empty() {
                input = "/";
            }
        } else if input.starts_with("/../") || input == "/.." {
            input = &input[3..];
            if input.is_empty() {
                input = "/";
            }
            out.truncate(out.rfind('/').unwrap_or(0));
        } else if input == "." || input == ".." {
            input = "";
        } else {
            let start = usize::from(input.starts_with('/'));
            let end = input[start..].find('/').map_or(input.len(), |i| i + start);
            out.push_str(&input[..end]);
            input = &input[end..];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normal(url: &str) -> String {
        of_htu(url).unwrap_or_else(|| panic!("{url} is a URL"))
    }

    #[test]
    fn spellings_of_one_url_have_one_normal_form() {
        let canonical = "https://mcp.example.com/mcp";
        for spelling in [
            "https://mcp.example.com/mcp",
            "HTTPS://MCP.Example.COM/mcp",
            "https://mcp.example.com:443/mcp",
            "https://mcp.example.com:0443/mcp",
            "https://mcp.example.com:/mcp",
            "https://mcp.example.com/%6Dcp",
            "https://mcp.example.com/./mcp",
            "https://mcp.example.com/a/../mcp",
            "https://mcp.example.com/mcp?session=1",
            "https://mcp.example.com/mcp#top",
            "https://mcp.example.com/mcp?q#f",
        ] {
            assert_eq!(normal(spelling), canonical, "{spelling}");
        }
        assert_eq!(normal("http://127.0.0.1:80"), "http://127.0.0.1/");
        assert_eq!(normal("http://[::1]:8080/x"), "http://[::1]:8080/x");
        assert_eq!(normal("https://h/a%2fb"), "https://h/a%2Fb");
        assert_eq!(normal("https://h/a/b/c/./../../g"), "https://h/a/g");
    }

    #[test]
    fn other_urls_stay_apart() {
        let canonical = normal("https://mcp.example.com/mcp");
        for other in [
            "http://mcp.example.com/mcp",
            "https://mcp.example.com:8443/mcp",
            "https://mcp.example.org/mcp",
            "https://mcp.example.com/mcp/",
            "https://mcp.example.com/MCP",
            "https://mcp.example.com/mcp/x/..",
            "https://mcp.example.com/other",
            "https://mcp.example.com/a%2Fmcp",
        ] {
            assert_ne!(normal(other), canonical, "{other}");
        }
        for not_a_url in [
            "/mcp",
            "mcp.example.com/mcp",
            "wss://mcp.example.com/mcp",
            "https://user@mcp.example.com/mcp",
            "https://mcp.example.com:port/mcp",
        ] {
            assert_eq!(of_htu(not_a_url), None, "{not_a_url}");
        }
    }
}
