//! Typed payloads: slices of numbers as little-endian message bytes, and the
//! reduction operations collectives apply to them.

/// A reduction operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Sum (integers wrap on overflow).
    Sum,
    /// Product (integers wrap on overflow).
    Prod,
    Min,
    /// Maximum. For floats `Min`/`Max` follow `f64::min`/`f64::max` (a NaN loses).
    Max,
}

impl Op {
    /// `a ⊕ b`.
    pub fn apply<T: Element>(self, a: T, b: T) -> T {
        T::combine(self, a, b)
    }

    /// `acc[i] = acc[i] ⊕ other[i]`.
    pub fn fold_into<T: Element>(self, acc: &mut [T], other: &[T]) {
        assert_eq!(acc.len(), other.len(), "reduction of vectors of different lengths");
        for (a, &b) in acc.iter_mut().zip(other) {
            *a = T::combine(self, *a, b);
        }
    }

    /// `acc[i] = left[i] ⊕ acc[i]` (the other operand on the left).
    pub(crate) fn fold_from_left<T: Element>(self, left: &[T], acc: &mut [T]) {
        assert_eq!(acc.len(), left.len(), "reduction of vectors of different lengths");
        for (a, &l) in acc.iter_mut().zip(left) {
            *a = T::combine(self, l, *a);
        }
    }
}

/// A number that collectives can carry and reduce: fixed size, little-endian bytes.
pub trait Element: Copy + PartialEq + std::fmt::Debug + 'static {
    /// Bytes per element on the wire.
    const SIZE: usize;
    fn write_le(self, out: &mut Vec<u8>);
    /// Read one element from exactly `SIZE` bytes.
    fn read_le(bytes: &[u8]) -> Self;
    fn combine(op: Op, a: Self, b: Self) -> Self;
}

macro_rules! int_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("element size"))
            }
            fn combine(op: Op, a: Self, b: Self) -> Self {
                match op {
                    Op::Sum => a.wrapping_add(b),
                    Op::Prod => a.wrapping_mul(b),
                    Op::Min => a.min(b),
                    Op::Max => a.max(b),
                }
            }
        }
    )*};
}

macro_rules! float_element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("element size"))
            }
            fn combine(op: Op, a: Self, b: Self) -> Self {
                match op {
                    Op::Sum => a + b,
                    Op::Prod => a * b,
                    Op::Min => a.min(b),
                    Op::Max => a.max(b),
                }
            }
        }
    )*};
}

int_element!(u8, i8, u16, i16, u32, i32, u64, i64);
float_element!(f32, f64);

/// Little-endian bytes of `values`.
pub fn encode<T: Element>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(values.len() * T::SIZE);
    for &v in values {
        v.write_le(&mut out);
    }
    out
}

/// The values of little-endian `bytes` (a whole number of elements).
pub fn decode<T: Element>(bytes: &[u8]) -> Vec<T> {
    assert!(
        bytes.len().is_multiple_of(T::SIZE),
        "{} bytes are not a whole number of {}-byte elements",
        bytes.len(),
        T::SIZE
    );
    bytes.chunks_exact(T::SIZE).map(T::read_le).collect()
}
