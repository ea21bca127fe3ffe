//! A small arithmetic expression language for time functions (spec §9a).
//!
//! Grammar (lowest to highest precedence):
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/') unary)*
//! unary   := '-' unary | power
//! power   := primary ('^' unary)?          (right-associative: 2^3^2 = 2^9)
//! primary := number | variable | function '(' expr (',' expr)* ')' | '(' expr ')'
//! ```
//!
//! `^` binds tighter than unary minus, so `-2^2 = -4`, and an exponent may itself be negated
//! (`2^-1 = 0.5`). An expression is parsed once into postfix code, with constant sub-expressions
//! folded, and evaluated on a fixed-size stack: evaluation runs per voxel per control step and
//! never allocates.

use std::fmt;

/// Variables an expression may read (besides the constant `pi`).
pub(crate) const VARIABLES: [&str; 6] = ["t", "x", "y", "w", "h", "pi"];
/// Functions an expression may call.
pub const FUNCTIONS: [&str; 11] = ["sin", "cos", "tan", "abs", "sign", "sqrt", "exp", "ln", "min", "max", "floor"];

/// Evaluation stack size: expressions needing more are refused at parse time.
const MAX_STACK: usize = 64;
/// Parser recursion limit, so hostile input cannot overflow the thread stack.
const MAX_NESTING: usize = 200;

/// The values of the variables at one evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vars {
    /// Time in seconds.
    pub t: f64,
    /// The voxel's cell column.
    pub x: f64,
    /// The voxel's cell row (0 = bottom).
    pub y: f64,
    /// Grid width in cells.
    pub w: f64,
    /// Grid height in cells.
    pub h: f64,
}

/// What went wrong, without the position.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExprErrorKind {
    #[error("expected {0}")]
    Expected(&'static str),
    #[error("unexpected character '{0}'")]
    UnexpectedChar(char),
    #[error(
        "unknown identifier '{0}' (variables: t, x, y, w, h, pi; functions: sin, cos, tan, abs, \
         sign, sqrt, exp, ln, min, max, floor)"
    )]
    UnknownIdentifier(String),
    #[error("expected '(' after function '{0}'")]
    MissingCall(&'static str),
    #[error("'{0}' is a variable, not a function")]
    NotAFunction(&'static str),
    #[error("function '{name}' takes {expected} argument{}, got {got}", if *.expected == 1 { "" } else { "s" })]
    ArgumentCount { name: &'static str, expected: usize, got: usize },
    #[error("number out of range")]
    NumberOutOfRange,
    #[error("expression nested too deeply (more than {MAX_NESTING} levels)")]
    TooDeep,
    #[error("expression too complex (needs {0} evaluation stack slots, at most {MAX_STACK})")]
    TooComplex(usize),
}

/// A parse error: what, where (0-based character position) and in which string.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind} at position {position} in \"{input}\"")]
pub struct ExprError {
    pub kind: ExprErrorKind,
    pub position: usize,
    pub input: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Var {
    T,
    X,
    Y,
    W,
    H,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Func1 {
    Sin,
    Cos,
    Tan,
    Abs,
    Sign,
    Sqrt,
    Exp,
    Ln,
    Floor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Func2 {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Min,
    Max,
}

/// One postfix instruction.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Const(f64),
    Var(Var),
    Neg,
    F1(Func1),
    F2(Func2),
}

impl Func1 {
    fn apply(self, a: f64) -> f64 {
        match self {
            Func1::Sin => a.sin(),
            Func1::Cos => a.cos(),
            Func1::Tan => a.tan(),
            Func1::Abs => a.abs(),
            // f64::signum(0.0) is 1; sign(0) is 0 here, as in mathematics.
            Func1::Sign => {
                if a > 0.0 {
                    1.0
                } else if a < 0.0 {
                    -1.0
                } else {
                    a // ±0 or NaN
                }
            }
            Func1::Sqrt => a.sqrt(),
            Func1::Exp => a.exp(),
            Func1::Ln => a.ln(),
            Func1::Floor => a.floor(),
        }
    }
}

impl Func2 {
    fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Func2::Add => a + b,
            Func2::Sub => a - b,
            Func2::Mul => a * b,
            Func2::Div => a / b,
            Func2::Pow => a.powf(b),
            // f64::min/max return the other operand when one is NaN.
            Func2::Min => a.min(b),
            Func2::Max => a.max(b),
        }
    }
}

/// A parsed expression, ready for repeated evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    ops: Vec<Op>,
    source: String,
}

impl Expr {
    /// Parses `source`; the error names the character position and what was expected there.
    pub fn parse(source: &str) -> Result<Expr, ExprError> {
        let err = |kind, position| ExprError { kind, position, input: source.to_string() };
        let tokens = tokenize(source).map_err(|(k, p)| err(k, p))?;
        let mut parser = Parser { tokens: &tokens, pos: 0, depth: 0, out: Emitter::default() };
        parser.parse_expr().map_err(|(k, p)| err(k, p))?;
        let end = parser.peek();
        if end.kind != Tok::End {
            return Err(err(ExprErrorKind::Expected("an operator or the end of the expression"), end.pos));
        }
        let ops = parser.out.ops;
        let depth = stack_depth(&ops);
        if depth > MAX_STACK {
            return Err(err(ExprErrorKind::TooComplex(depth), 0));
        }
        Ok(Expr { ops, source: source.to_string() })
    }

    /// The text this expression was parsed from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The value, if the expression reads no variable.
    pub fn as_constant(&self) -> Option<f64> {
        match self.ops.as_slice() {
            [Op::Const(c)] => Some(*c),
            _ => None,
        }
    }

    /// A copy with x, y, w and h fixed (and constants re-folded), so that per-voxel evaluation only
    /// does the work that depends on t. Gives bit-identical results to [`Expr::eval`].
    pub(crate) fn specialize(&self, x: f64, y: f64, w: f64, h: f64) -> Expr {
        let mut out = Emitter::default();
        for &op in &self.ops {
            out.emit(match op {
                Op::Var(Var::X) => Op::Const(x),
                Op::Var(Var::Y) => Op::Const(y),
                Op::Var(Var::W) => Op::Const(w),
                Op::Var(Var::H) => Op::Const(h),
                other => other,
            });
        }
        Expr { ops: out.ops, source: self.source.clone() }
    }

    /// Evaluates the expression; allocation-free.
    pub fn eval(&self, v: &Vars) -> f64 {
        if let [Op::Const(c)] = self.ops.as_slice() {
            return *c;
        }
        // The depth was checked against MAX_STACK when parsing, and the code is well formed
        // (every operator finds its operands), so the indices below stay in bounds.
        let mut stack = [0.0f64; MAX_STACK];
        let mut sp = 0usize;
        for op in &self.ops {
            match *op {
                Op::Const(c) => {
                    stack[sp] = c;
                    sp += 1;
                }
                Op::Var(var) => {
                    stack[sp] = match var {
                        Var::T => v.t,
                        Var::X => v.x,
                        Var::Y => v.y,
                        Var::W => v.w,
                        Var::H => v.h,
                    };
                    sp += 1;
                }
                Op::Neg => stack[sp - 1] = -stack[sp - 1],
                Op::F1(f) => stack[sp - 1] = f.apply(stack[sp - 1]),
                Op::F2(f) => {
                    sp -= 1;
                    stack[sp - 1] = f.apply(stack[sp - 1], stack[sp]);
                }
            }
        }
        stack[0]
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// The largest stack depth the code reaches.
fn stack_depth(ops: &[Op]) -> usize {
    let (mut sp, mut max) = (0usize, 0usize);
    for op in ops {
        match op {
            Op::Const(_) | Op::Var(_) => sp += 1,
            Op::Neg | Op::F1(_) => {}
            Op::F2(_) => sp = sp.saturating_sub(1),
        }
        max = max.max(sp);
    }
    max
}

/// Appends postfix code, folding an operator whose operands are all constants.
#[derive(Default)]
struct Emitter {
    ops: Vec<Op>,
}

impl Emitter {
    fn emit(&mut self, op: Op) {
        let n = self.ops.len();
        match op {
            Op::Neg | Op::F1(_) => {
                if let Some(Op::Const(a)) = self.ops.last_mut() {
                    *a = match op {
                        Op::F1(f) => f.apply(*a),
                        _ => -*a,
                    };
                    return;
                }
            }
            Op::F2(f) => {
                // In postfix, two trailing constants are exactly this operator's two operands.
                if let [.., Op::Const(a), Op::Const(b)] = self.ops[..] {
                    self.ops.truncate(n - 2);
                    self.ops.push(Op::Const(f.apply(a, b)));
                    return;
                }
            }
            Op::Const(_) | Op::Var(_) => {}
        }
        self.ops.push(op);
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Ident(String),
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    LParen,
    RParen,
    Comma,
    End,
}

#[derive(Debug, Clone, PartialEq)]
struct Token {
    kind: Tok,
    /// 0-based character (not byte) position.
    pos: usize,
}

type PResult<T> = Result<T, (ExprErrorKind, usize)>;

fn tokenize(source: &str) -> PResult<Vec<Token>> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        let kind = match c {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '+' => Tok::Plus,
            '-' => Tok::Minus,
            '*' => Tok::Star,
            '/' => Tok::Slash,
            '^' => Tok::Caret,
            '(' => Tok::LParen,
            ')' => Tok::RParen,
            ',' => Tok::Comma,
            c if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) => {
                let digits = |i: &mut usize| {
                    while chars.get(*i).is_some_and(|d| d.is_ascii_digit()) {
                        *i += 1;
                    }
                };
                digits(&mut i);
                if chars.get(i) == Some(&'.') {
                    i += 1;
                    digits(&mut i);
                }
                if matches!(chars.get(i), Some('e' | 'E')) {
                    i += 1;
                    if matches!(chars.get(i), Some('+' | '-')) {
                        i += 1;
                    }
                    let exp_start = i;
                    digits(&mut i);
                    if i == exp_start {
                        return Err((ExprErrorKind::Expected("digits in the exponent of the number"), i));
                    }
                }
                let text: String = chars[start..i].iter().collect();
                // `text` is digits[.digits][e[+-]digits], which Rust's parser always accepts.
                let value: f64 = text.parse().map_err(|_| (ExprErrorKind::Expected("a number"), start))?;
                if !value.is_finite() {
                    return Err((ExprErrorKind::NumberOutOfRange, start));
                }
                tokens.push(Token { kind: Tok::Num(value), pos: start });
                continue;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                while chars.get(i).is_some_and(|d| d.is_ascii_alphanumeric() || *d == '_') {
                    i += 1;
                }
                tokens.push(Token { kind: Tok::Ident(chars[start..i].iter().collect()), pos: start });
                continue;
            }
            other => return Err((ExprErrorKind::UnexpectedChar(other), i)),
        };
        tokens.push(Token { kind, pos: start });
        i += 1;
    }
    tokens.push(Token { kind: Tok::End, pos: chars.len() });
    Ok(tokens)
}

struct Parser<'a> {
    /// Always ends with `Tok::End`.
    tokens: &'a [Token],
    pos: usize,
    depth: usize,
    out: Emitter,
}

impl Parser<'_> {
    fn peek(&self) -> &Token {
        // `pos` never passes the final End token (advance stops there).
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn advance(&mut self) {
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
    }

    fn parse_expr(&mut self) -> PResult<()> {
        self.parse_term()?;
        loop {
            let op = match self.peek().kind {
                Tok::Plus => Func2::Add,
                Tok::Minus => Func2::Sub,
                _ => return Ok(()),
            };
            self.advance();
            self.parse_term()?;
            self.out.emit(Op::F2(op));
        }
    }

    fn parse_term(&mut self) -> PResult<()> {
        self.parse_unary()?;
        loop {
            let op = match self.peek().kind {
                Tok::Star => Func2::Mul,
                Tok::Slash => Func2::Div,
                _ => return Ok(()),
            };
            self.advance();
            self.parse_unary()?;
            self.out.emit(Op::F2(op));
        }
    }

    /// Every recursion cycle of the grammar passes through here, so the nesting limit lives here.
    fn parse_unary(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err((ExprErrorKind::TooDeep, self.peek().pos));
        }
        let result = if self.peek().kind == Tok::Minus {
            self.advance();
            self.parse_unary().map(|()| self.out.emit(Op::Neg))
        } else {
            self.parse_power()
        };
        self.depth -= 1;
        result
    }

    fn parse_power(&mut self) -> PResult<()> {
        self.parse_primary()?;
        if self.peek().kind == Tok::Caret {
            self.advance();
            // The exponent is a unary, which recurses into power: right-associative.
            self.parse_unary()?;
            self.out.emit(Op::F2(Func2::Pow));
        }
        Ok(())
    }

    fn parse_primary(&mut self) -> PResult<()> {
        let Token { kind, pos } = self.peek().clone();
        match kind {
            Tok::Num(v) => {
                self.advance();
                self.out.emit(Op::Const(v));
                Ok(())
            }
            Tok::LParen => {
                self.advance();
                self.parse_expr()?;
                self.expect_rparen()
            }
            Tok::Ident(name) => {
                self.advance();
                self.parse_identifier(&name, pos)
            }
            _ => Err((ExprErrorKind::Expected("an expression"), pos)),
        }
    }

    fn expect_rparen(&mut self) -> PResult<()> {
        let t = self.peek();
        if t.kind == Tok::RParen {
            self.advance();
            Ok(())
        } else {
            Err((ExprErrorKind::Expected("')'"), t.pos))
        }
    }

    fn parse_identifier(&mut self, name: &str, pos: usize) -> PResult<()> {
        let var = match name {
            "t" => Some(Op::Var(Var::T)),
            "x" => Some(Op::Var(Var::X)),
            "y" => Some(Op::Var(Var::Y)),
            "w" => Some(Op::Var(Var::W)),
            "h" => Some(Op::Var(Var::H)),
            "pi" => Some(Op::Const(std::f64::consts::PI)),
            _ => None,
        };
        if let Some(op) = var {
            if self.peek().kind == Tok::LParen {
                let name = VARIABLES.iter().find(|v| **v == name).copied().unwrap_or("variable");
                return Err((ExprErrorKind::NotAFunction(name), pos));
            }
            self.out.emit(op);
            return Ok(());
        }
        let (fname, op, arity) = match name {
            "sin" => ("sin", Op::F1(Func1::Sin), 1),
            "cos" => ("cos", Op::F1(Func1::Cos), 1),
            "tan" => ("tan", Op::F1(Func1::Tan), 1),
            "abs" => ("abs", Op::F1(Func1::Abs), 1),
            "sign" => ("sign", Op::F1(Func1::Sign), 1),
            "sqrt" => ("sqrt", Op::F1(Func1::Sqrt), 1),
            "exp" => ("exp", Op::F1(Func1::Exp), 1),
            "ln" => ("ln", Op::F1(Func1::Ln), 1),
            "floor" => ("floor", Op::F1(Func1::Floor), 1),
            "min" => ("min", Op::F2(Func2::Min), 2),
            "max" => ("max", Op::F2(Func2::Max), 2),
            _ => return Err((ExprErrorKind::UnknownIdentifier(name.to_string()), pos)),
        };
        if self.peek().kind != Tok::LParen {
            return Err((ExprErrorKind::MissingCall(fname), self.peek().pos));
        }
        self.advance();
        let mut args = 0usize;
        if self.peek().kind != Tok::RParen {
            loop {
                self.parse_expr()?;
                args += 1;
                let t = self.peek();
                match t.kind {
                    Tok::Comma => self.advance(),
                    Tok::RParen => break,
                    _ => {
                        let what = if args < arity { "','" } else { "')'" };
                        return Err((ExprErrorKind::Expected(what), t.pos));
                    }
                }
            }
        }
        self.advance(); // the ')'
        if args != arity {
            return Err((ExprErrorKind::ArgumentCount { name: fname, expected: arity, got: args }, pos));
        }
        self.out.emit(op);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn ev(src: &str) -> f64 {
        Expr::parse(src).unwrap_or_else(|e| panic!("{e}")).eval(&Vars { t: 0.25, x: 2.0, y: 1.0, w: 5.0, h: 3.0 })
    }

    fn err(src: &str) -> ExprError {
        Expr::parse(src).expect_err(src)
    }

    #[test]
    fn numbers() {
        assert_eq!(ev("1e-3"), 1e-3);
        assert_eq!(ev(".5"), 0.5);
        assert_eq!(ev("2."), 2.0);
        assert_eq!(ev("1.5E+2"), 150.0);
        assert_eq!(ev("  42  "), 42.0);
        assert_eq!(ev("pi"), PI);
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(ev("1 + 2 * 3"), 7.0);
        assert_eq!(ev("(1 + 2) * 3"), 9.0);
        assert_eq!(ev("8 - 3 - 2"), 3.0); // left-assoc
        assert_eq!(ev("8 / 4 / 2"), 1.0); // left-assoc
        assert_eq!(ev("2 ^ 3 ^ 2"), 512.0); // right-assoc
        assert_eq!(ev("-2^2"), -4.0); // ^ binds tighter than unary minus
        assert_eq!(ev("(-2)^2"), 4.0);
        assert_eq!(ev("2^-1"), 0.5);
        assert_eq!(ev("2*-3"), -6.0);
        assert_eq!(ev("--3"), 3.0);
        assert_eq!(ev("-3 - -3"), 0.0);
        assert_eq!(ev("2 * 3 ^ 2"), 18.0);
        assert_eq!(ev("1 - 2 + 3"), 2.0);
        assert_eq!(ev("6 / 2 * 3"), 9.0);
    }

    #[test]
    fn variables() {
        assert_eq!(ev("t"), 0.25);
        assert_eq!(ev("x"), 2.0);
        assert_eq!(ev("y"), 1.0);
        assert_eq!(ev("w"), 5.0);
        assert_eq!(ev("h"), 3.0);
        assert_eq!(ev("x*10 + y*100 + w*1000 + h*10000 + t"), 35120.25);
    }

    #[test]
    fn every_function() {
        assert_eq!(ev("sin(0.5)"), 0.5f64.sin());
        assert_eq!(ev("cos(0.5)"), 0.5f64.cos());
        assert_eq!(ev("tan(0.5)"), 0.5f64.tan());
        assert_eq!(ev("abs(-2.5)"), 2.5);
        assert_eq!(ev("sign(-2.5)"), -1.0);
        assert_eq!(ev("sign(3)"), 1.0);
        assert_eq!(ev("sign(0)"), 0.0);
        assert_eq!(ev("sqrt(16)"), 4.0);
        assert_eq!(ev("exp(1)"), std::f64::consts::E);
        assert_eq!(ev("ln(exp(2))"), 2.0);
        assert_eq!(ev("min(3, -1)"), -1.0);
        assert_eq!(ev("max(3, -1)"), 3.0);
        assert_eq!(ev("floor(2.7)"), 2.0);
        assert_eq!(ev("floor(-2.2)"), -3.0);
        assert!(ev("sqrt(-1)").is_nan());
        assert!(ev("ln(-1)").is_nan());
        assert_eq!(ev("max(min(x, y), t)"), 1.0);
    }

    #[test]
    fn folding_and_specialization_keep_values() {
        let e = Expr::parse("sin(-2*pi*t + pi*x/w) + 0.1*y*h").unwrap();
        // 2*pi and the negation fold; t, x, y, w and h stay variables.
        assert!(e.ops.len() < 17, "{:?}", e.ops);
        for (t, x, y) in [(0.0, 0.0, 0.0), (0.3, 1.0, 2.0), (7.77, 4.0, 1.0)] {
            let v = Vars { t, x, y, w: 5.0, h: 3.0 };
            let s = e.specialize(x, y, 5.0, 3.0);
            assert_eq!(s.eval(&Vars { t, ..Vars::default() }).to_bits(), e.eval(&v).to_bits());
        }
        let c = Expr::parse("2*pi*3").unwrap();
        assert_eq!(c.as_constant(), Some(2.0 * PI * 3.0));
        assert_eq!(Expr::parse("x/w").unwrap().specialize(1.0, 0.0, 4.0, 1.0).as_constant(), Some(0.25));
    }

    #[test]
    fn travelling_wave_expression() {
        let e = Expr::parse("sin(-2*pi*t + pi*x/w)").unwrap();
        let w = 6.0;
        for t in [0.0, 0.1, 0.5, 1.3, 59.9] {
            for x in [0.0, 1.0, 3.0, 5.0] {
                let frequency = -1.0; // the sin form with ν = −1, φ = πx/w
                let direct = (2.0 * PI * frequency * t + PI * x / w).sin();
                let got = e.eval(&Vars { t, x, y: 0.0, w, h: 2.0 });
                assert!((got - direct).abs() < 1e-12, "t={t} x={x}: {got} vs {direct}");
            }
        }
    }

    #[test]
    fn error_positions() {
        let e = err("sin(2*pi*t");
        assert_eq!(e.position, 10);
        assert_eq!(e.kind, ExprErrorKind::Expected("')'"));
        assert_eq!(e.to_string(), "expected ')' at position 10 in \"sin(2*pi*t\"");

        let e = err("1 + ");
        assert_eq!((e.position, e.kind), (4, ExprErrorKind::Expected("an expression")));
        let e = err("2 * (3 + 4");
        assert_eq!((e.position, e.kind), (10, ExprErrorKind::Expected("')'")));
        let e = err("2 3");
        assert_eq!(e.position, 2);
        let e = err("1 + # 2");
        assert_eq!((e.position, e.kind), (4, ExprErrorKind::UnexpectedChar('#')));
        let e = err("1e+");
        assert_eq!(e.position, 3);
        let e = err("");
        assert_eq!((e.position, e.kind), (0, ExprErrorKind::Expected("an expression")));
        let e = err("(1))");
        assert_eq!(e.position, 3);
        let e = err("sin 2");
        assert_eq!((e.position, e.kind), (4, ExprErrorKind::MissingCall("sin")));
        let e = err("min(1 2)");
        assert_eq!((e.position, e.kind), (6, ExprErrorKind::Expected("','")));
        // Positions count characters, not bytes.
        let e = err("\u{3c0} + 1");
        assert_eq!((e.position, e.kind), (0, ExprErrorKind::UnexpectedChar('\u{3c0}')));
        let e = err("1 + \u{3c0}");
        assert_eq!(e.position, 4);
    }

    #[test]
    fn unknown_identifier_lists_allowed_names() {
        let e = err("2 * foo");
        assert_eq!(e.position, 4);
        let msg = e.to_string();
        assert!(msg.contains("'foo'"), "{msg}");
        for name in VARIABLES.iter().chain(FUNCTIONS.iter()) {
            assert!(msg.contains(name), "{msg} lacks {name}");
        }
        assert_eq!(err("x(2)").kind, ExprErrorKind::NotAFunction("x"));
    }

    #[test]
    fn wrong_argument_count_names_the_function() {
        let e = err("1 + min(1)");
        assert_eq!(e.position, 4);
        assert_eq!(e.to_string(), "function 'min' takes 2 arguments, got 1 at position 4 in \"1 + min(1)\"");
        let e = err("sin(1, 2)");
        assert_eq!(e.kind, ExprErrorKind::ArgumentCount { name: "sin", expected: 1, got: 2 });
        assert!(e.to_string().contains("takes 1 argument,"));
        let e = err("floor()");
        assert_eq!(e.kind, ExprErrorKind::ArgumentCount { name: "floor", expected: 1, got: 0 });
    }

    #[test]
    fn limits_refuse_instead_of_crashing() {
        assert_eq!(err("1e999").kind, ExprErrorKind::NumberOutOfRange);
        let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
        assert_eq!(err(&deep).kind, ExprErrorKind::TooDeep);
        let wide = format!("{}t{}", "t+(".repeat(100), ")".repeat(100));
        assert!(matches!(err(&wide).kind, ExprErrorKind::TooComplex(_)));
        // Long flat sums need only two stack slots.
        let long = vec!["t"; 10_000].join("+");
        assert_eq!(Expr::parse(&long).unwrap().eval(&Vars { t: 1.0, ..Vars::default() }), 10_000.0);
    }
}
