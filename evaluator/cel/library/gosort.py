"""Go's sort.Slice (pattern-defeating quicksort), so equal keys end up where cel-go puts them.

sort.Slice is not stable: with more than 12 elements, elements whose keys compare equal are reordered
in a way a stable sort would not reproduce. cel-go's `sort()` / `sortBy()` use it, so this is a
line-for-line port of Go's sort/zsortfunc.go (Go 1.19 onwards); it is deterministic.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["go_sort_slice"]

_MAX_INSERTION = 12
_U64 = (1 << 64) - 1
_INCREASING, _DECREASING, _UNKNOWN = 1, 2, 0


def go_sort_slice(data: list, less: Callable[[Any, Any], bool]) -> None:
    """Sort `data` in place exactly as Go's sort.Slice(data, func(i, j) less(data[i], data[j]))."""
    _Sorter(data, less).pdqsort(0, len(data), len(data).bit_length())


class _Sorter:
    def __init__(self, data: list, less: Callable[[Any, Any], bool]):
        self.data = data
        self.lt = less

    def less(self, i: int, j: int) -> bool:
        return self.lt(self.data[i], self.data[j])

    def swap(self, i: int, j: int) -> None:
        d = self.data
        d[i], d[j] = d[j], d[i]

    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        first, lo, hi = a, 0, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(lo, i, first)

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        was_balanced = was_partitioned = True
        while True:
            length = b - a
            if length <= _MAX_INSERTION:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING
            if was_balanced and was_partitioned and hint == _INCREASING:
                if self.partial_insertion_sort(a, b):
                    return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, already = self.partition(a, b, pivot)
            was_partitioned = already
            left, right = mid - a, b - mid
            threshold = length // 8
            if left < right:
                was_balanced = left >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        """Go's partition; also says whether the range was already partitioned (no swap was needed)."""
        self.swap(a, pivot)
        _, j, swapped = self.sweep(a + 1, b - 1, lambda k: self.less(k, a))
        self.swap(j, a)
        return j, not swapped

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, _, _ = self.sweep(a + 1, b - 1, lambda k: not self.less(a, k))
        return i

    def sweep(self, i: int, j: int, goes_left: Callable[[int], bool]) -> tuple[int, int, bool]:
        """The scan both partitions share: i moves up and j down past elements on their side, and each pair
        found on the wrong sides is swapped, until they cross; also says whether anything was swapped."""
        swapped = False
        while True:
            while i <= j and goes_left(i):
                i += 1
            while i <= j and not goes_left(j):
                j -= 1
            if i > j:
                return i, j, swapped
            self.swap(i, j)
            i += 1
            j -= 1
            swapped = True

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        max_steps, shortest_shifting = 5, 50
        i = a + 1
        for _ in range(max_steps):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < shortest_shifting:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                for j in range(i - 1, 0, -1):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
            if b - i >= 2:
                for j in range(i + 1, b):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length >= 8:
            random = length
            modulus = 1 << length.bit_length()
            idx = a + (length // 4) * 2 - 1
            while idx <= a + (length // 4) * 2 + 1:
                random ^= (random << 13) & _U64
                random ^= random >> 17
                random ^= (random << 5) & _U64
                other = random & (modulus - 1)
                if other >= length:
                    other -= length
                self.swap(idx, a + other)
                idx += 1

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        shortest_ninther, max_swaps = 50, 4 * 3
        n = b - a
        swaps = [0]
        i, j, k = a + n // 4 * 1, a + n // 4 * 2, a + n // 4 * 3
        if n >= 8:
            if n >= shortest_ninther:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        if swaps[0] == max_swaps:
            return j, _DECREASING
        return j, _UNKNOWN

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i += 1
            j -= 1
