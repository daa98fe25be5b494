"""The person at the browser, for the end-to-end OAuth test: opens the authorization URL,
signs in on the authorization server's page as the named user, and follows the server's
redirect back to the client's redirect URI (its loopback listener), as a browser does. Keeps
cookies; trusts the test's CA.

usage: sign_in.py AUTHORIZATION_URL USER CA_FILE REDIRECT_URI
"""

import http.cookiejar
import ssl
import sys
import urllib.error
import urllib.parse
import urllib.request


class Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *_args, **_kwargs):
        return None


def main():
    url, user, ca_file, redirect_uri = sys.argv[1:5]
    browser = urllib.request.build_opener(
        Stay(),
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
        urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=ca_file)),
    )

    def visit(method, target):
        request = urllib.request.Request(target, method=method, data=b"" if method == "POST" else None)
        try:
            response = browser.open(request)
        except urllib.error.HTTPError as answered:
            response = answered
        location = response.headers.get("location")
        if location is None:
            sys.exit(f"{method} {target}: HTTP {response.status} without a redirect: {response.read()[:300]!r}")
        return urllib.parse.urljoin(target, location)

    method = "GET"
    for _ in range(10):
        url = visit(method, url)
        if url.startswith(redirect_uri):
            with browser.open(url) as delivered:
                print(f"redirected to the client: HTTP {delivered.status}")
            return
        if "/interaction/" in urllib.parse.urlparse(url).path:
            url, method = f"{url}?user={user}", "POST"
        else:
            method = "GET"
    sys.exit("too many redirects")


main()
