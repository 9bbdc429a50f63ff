// The engine's name for common/limits.h (every limit of the service), kept because the
// engine, the server, the programs and the tests include it in many files; new code
// includes common/limits.h.
#pragma once

#include "common/limits.h"
