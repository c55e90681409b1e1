= REST API Quick Start

The REST API of the Lumen Data Gateway lets you read meter data, query the status of devices and manage
sinks. All endpoints are served by the gateway itself under the base path /api/v1 on the regular data
port, which is 8443 unless configured otherwise.

# Authentication

Every request needs an access token. Request a token by sending your client ID and client secret to the
token endpoint:

```
curl -s -X POST https://gateway.example:8443/api/v1/auth/token \
     -d client_id=mdm-reader -d client_secret="$LUMEN_CLIENT_SECRET"
```

The response contains the token and its lifetime in seconds. Tokens are valid for 3600 seconds unless the
operator has changed gateway.auth.token_ttl. Send the token in the Authorization header as a bearer
token. When a token has expired, the API answers with HTTP 401 and the error code LDG-2015.

# Reading meter data

Readings of a single meter are returned by the endpoint GET /api/v1/meters/{meter_id}/readings. Use the
parameters from and to with timestamps in ISO 8601 format to select a time range. A single request may
cover at most 31 days. Energy values are returned in watt-hours, each with a quality flag that is either
measured, estimated or substituted.

# Pagination

List endpoints use cursor-based pagination. The parameter limit sets the page size; the default is 500
entries and the maximum is 5000 entries per page. If more data is available, the response contains a
next_cursor value that you pass as the cursor parameter of the next request.

# Rate limits

Each token may send up to 600 requests per minute. If you exceed this limit, the API responds with HTTP
status 429 and a Retry-After header that states how many seconds to wait before the next request.

# Error handling

| HTTP status | Meaning |
| 400 | The request is malformed, for example because of an invalid time range |
| 401 | The token is missing, invalid or expired |
| 403 | The token does not grant access to the requested meter or sink |
| 404 | The meter or sink does not exist |
| 429 | The rate limit has been exceeded |
| 503 | The node is in standby or the sink is unavailable |

# Versioning

Version 1 of the API is stable. Incompatible changes are only introduced under a new path such as
/api/v2. Endpoints that are going to be removed are announced in the release notes at least six months in
advance.
