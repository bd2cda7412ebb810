// The metadata expression language: arithmetic, names, functions, and errors that point at the problem.
#include "core/kernel_file/expr.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cp {
namespace {

double eval_ok(const std::string& text, const Scope& scope = {}) {
    auto r = eval_expr(text, scope);
    EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().full());
    return r.ok() ? *r : NAN;
}

std::string eval_error(const std::string& text, const Scope& scope = {}) {
    auto r = eval_expr(text, scope);
    EXPECT_FALSE(r.ok()) << text << " unexpectedly gave " << (r.ok() ? *r : 0);
    return r.ok() ? "" : r.error().full();
}

TEST(Expr, Numbers) {
    EXPECT_EQ(eval_ok("42"), 42);
    EXPECT_EQ(eval_ok("1.5"), 1.5);
    EXPECT_EQ(eval_ok(".25"), 0.25);
    EXPECT_EQ(eval_ok("1e-6"), 1e-6);
    EXPECT_EQ(eval_ok("2.5E3"), 2500);
    EXPECT_EQ(eval_ok("0x10"), 16);
    EXPECT_EQ(eval_ok("0XfF"), 255);
    EXPECT_EQ(eval_ok("  7  "), 7);
}

TEST(Expr, PrecedenceAndAssociativity) {
    EXPECT_EQ(eval_ok("2 + 3 * 4"), 14);
    EXPECT_EQ(eval_ok("(2 + 3) * 4"), 20);
    EXPECT_EQ(eval_ok("10 - 4 - 3"), 3);
    EXPECT_EQ(eval_ok("64 / 4 / 2"), 8);
    EXPECT_EQ(eval_ok("17 % 5"), 2);
    EXPECT_EQ(eval_ok("-3 * -2"), 6);
    EXPECT_EQ(eval_ok("-(1 + 2)"), -3);
    EXPECT_EQ(eval_ok("2 * -x", {{"x", 4}}), -8);
    EXPECT_EQ(eval_ok("+5"), 5);
    EXPECT_EQ(eval_ok("1 - -1"), 2);
}

TEST(Expr, DivisionIsNotIntegerDivision) {
    // The grid of a 1000003-element problem with 256-thread blocks: 3907 blocks, not 3906.
    const Scope scope = {{"n", 1000003}, {"block.x", 256}};
    EXPECT_EQ(eval_ok("ceil(n / block.x)", scope), 3907);
    EXPECT_EQ(eval_ok("div_up(n, block.x)", scope), 3907);
    EXPECT_EQ(eval_ok("floor(n / block.x)", scope), 3906);
    EXPECT_EQ(eval_ok("7 / 2"), 3.5);
}

TEST(Expr, NamesWithDots) {
    const Scope scope = {{"src.width", 640}, {"src.height", 480}, {"block.x", 16}, {"block.y", 8}};
    EXPECT_EQ(eval_ok("src.width * src.height", scope), 640 * 480);
    EXPECT_EQ(eval_ok("ceil(src.height / block.y)", scope), 60);
    EXPECT_EQ(eval_ok("src.width/block.x", scope), 40);
}

TEST(Expr, Functions) {
    EXPECT_EQ(eval_ok("ceil(2.1)"), 3);
    EXPECT_EQ(eval_ok("floor(-2.1)"), -3);
    EXPECT_EQ(eval_ok("round(2.5)"), 3);
    EXPECT_EQ(eval_ok("min(4, 2, 9)"), 2);
    EXPECT_EQ(eval_ok("max(4, 2, 9)"), 9);
    EXPECT_EQ(eval_ok("abs(-7)"), 7);
    EXPECT_EQ(eval_ok("sqrt(81)"), 9);
    EXPECT_EQ(eval_ok("pow(2, 10)"), 1024);
    EXPECT_EQ(eval_ok("log2(4096)"), 12);
    EXPECT_EQ(eval_ok("div_up(10, 3)"), 4);
    EXPECT_EQ(eval_ok("max(1, min(2, 3)) * ceil ( 0.5 )"), 2);
}

TEST(Expr, UnknownNameSuggestsClosest) {
    const std::string e = eval_error("ceil(widht / 16)", {{"width", 100}, {"height", 50}});
    EXPECT_NE(e.find("unknown name `widht`"), std::string::npos) << e;
    EXPECT_NE(e.find("column 6"), std::string::npos) << e;
    EXPECT_NE(e.find("Did you mean `width`?"), std::string::npos) << e;
}

TEST(Expr, UnknownFunctionSuggestsClosest) {
    const std::string e = eval_error("cieling(3)");
    EXPECT_NE(e.find("unknown function `cieling`"), std::string::npos) << e;
    const std::string e2 = eval_error("ciel(3)");
    EXPECT_NE(e2.find("Did you mean `ceil`?"), std::string::npos) << e2;
}

TEST(Expr, SyntaxErrorsGiveTheColumn) {
    EXPECT_NE(eval_error("1 + * 2").find("column 5"), std::string::npos);
    EXPECT_NE(eval_error("(1 + 2").find("column 1"), std::string::npos);
    EXPECT_NE(eval_error("1 + 2)").find("column 6"), std::string::npos);
    EXPECT_NE(eval_error("1 +").find("ends too early"), std::string::npos);
    EXPECT_NE(eval_error("").find("empty"), std::string::npos);
    EXPECT_NE(eval_error("2n", {{"n", 1}}).find("`2n` is not a number"), std::string::npos);
    EXPECT_NE(eval_error("3 $ 4").find("unexpected `$`"), std::string::npos);
    EXPECT_NE(eval_error("1.2.3").find("not a number"), std::string::npos);
}

TEST(Expr, WrongArgumentCounts) {
    EXPECT_NE(eval_error("pow(2)").find("`pow` takes 2 arguments, got 1"), std::string::npos);
    EXPECT_NE(eval_error("ceil(1, 2)").find("`ceil` takes 1 argument, got 2"), std::string::npos);
    EXPECT_NE(eval_error("min(1)").find("at least 2"), std::string::npos);
    EXPECT_NE(eval_error("ceil").find("is a function"), std::string::npos);
}

TEST(Expr, ArithmeticErrors) {
    EXPECT_NE(eval_error("1 / (n - n)", {{"n", 3}}).find("division by zero"), std::string::npos);
    EXPECT_NE(eval_error("5 % 0").find("by zero"), std::string::npos);
    EXPECT_NE(eval_error("sqrt(-1)").find("negative"), std::string::npos);
    EXPECT_NE(eval_error("div_up(3, 0)").find("by zero"), std::string::npos);
    EXPECT_NE(eval_error("pow(10, 400)").find("finite"), std::string::npos);
}

// A kernel file is untrusted: nesting deep enough to overflow the stack (it crashed the app on opening the
// file) is an error with its column; the library's few levels are nowhere near the limit.
TEST(Expr, DeepNestingIsAnErrorNotACrash) {
    const std::string deep = std::string(300000, '(') + "1" + std::string(300000, ')');
    auto r = eval_expr(deep, {});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("at column 201: the expression nests more than 200 levels deep"), std::string::npos)
        << r.error().message;
    auto c = check_expr(std::string(300000, '-') + "1", {});
    ASSERT_TRUE(c);
    EXPECT_EQ(c->message, "the expression nests more than 200 levels deep");
    auto ok = eval_expr(std::string(199, '(') + "2" + std::string(199, ')'), {});
    ASSERT_TRUE(ok) << ok.error().message;
    EXPECT_EQ(*ok, 2);
    auto calls = eval_expr("max(1, " + std::string(150, '-') + "min(3, (((4)))))", {});
    ASSERT_TRUE(calls) << calls.error().message;
    EXPECT_EQ(*calls, 3);  // an even number of signs
}

TEST(Expr, NamesListsReferencedNamesOnce) {
    EXPECT_EQ(expr_names("ceil(width / block.x) + width * src.height"),
              (std::vector<std::string>{"width", "block.x", "src.height"}));
    EXPECT_EQ(expr_names("max(1e-6, 0x10)"), std::vector<std::string>{});
    EXPECT_EQ(expr_names("n +"), std::vector<std::string>{"n"});  // tolerant of broken text
}

TEST(Expr, CheckWithoutValues) {
    EXPECT_FALSE(check_expr("1 / (n - n)", {"n"}));  // fine in form; values decide later
    auto p = check_expr("ceil(n / blok.x)", {"n", "block.x"});
    ASSERT_TRUE(p);
    EXPECT_EQ(p->column, 10);
    EXPECT_NE(p->message.find("unknown name `blok.x`"), std::string::npos);
    EXPECT_NE(p->hint.find("Did you mean `block.x`?"), std::string::npos) << p->hint;
    auto q = check_expr("n * (2", {"n"});
    ASSERT_TRUE(q);
    EXPECT_EQ(q->column, 5);
}

}  // namespace
}  // namespace cp
