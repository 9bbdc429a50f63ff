// The service's OpenAPI 3.1 description (docs/openapi.json, built into the binary), served at
// GET /v1/openapi.json so that an LMS developer can generate a client from the running server.
// tests/openapi_check.py validates real answers against it.
#pragma once

#include <string_view>

namespace headgrader::server {

std::string_view openapi_document();

}  // namespace headgrader::server
