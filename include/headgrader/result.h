// The engine's name for common/result.h (Result<T>, Error), kept because the engine, the
// server and the programs include it in many files; new code includes
// common/result.h.
#pragma once

#include "common/result.h"
