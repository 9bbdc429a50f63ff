// A Router as the server builds it without --keys, --lti or a store (Part 1): the problems in
// a ProblemCatalog, grading open. The Router keeps a reference to its Service, so the three
// live and die together here.
#pragma once

#include <utility>

#include "problem_catalog.h"
#include "router.h"
#include "service.h"

namespace headgrader::testing {

class Part1Router {
 public:
  explicit Part1Router(ProblemSet problems) : catalog_(std::move(problems)) {}
  Part1Router(const Part1Router&) = delete;
  Part1Router& operator=(const Part1Router&) = delete;

  const server::Router& router() const { return router_; }

 private:
  server::ProblemCatalog catalog_;
  server::Service service_{&catalog_};
  server::Router router_{service_};
};

}  // namespace headgrader::testing
